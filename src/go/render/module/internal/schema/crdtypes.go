package schema

import (
	"encoding/json"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/sets"
	builderutil "k8s.io/kube-openapi/pkg/builder3/util"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The type converter the API server's server-side apply converts a custom resource with, built
// from its CustomResourceDefinition as apiextensions-apiserver builds it (crdHandler's
// getOrCreateServingInfoFor: buildOpenAPIModelsForApply, then
// managedfields.NewTypeConverter(models, crd.Spec.PreserveUnknownFields)), so that a custom
// resource whose CRD is not applied yet — the Diff's own — is converted as it will be once its
// CRD is (docs/risks.md#schema-findings). The models are what
// pkg/controller/openapi/builder.BuildOpenAPIV3 puts in a version's components (the same
// schema the cluster then publishes in /openapi/v3): linking that package would link
// k8s.io/apiserver/pkg/endpoints, gRPC and client-go's typed clients (docs/renderers.md), so
// publishedSchema below is its kind's schema written out, with the same libraries it uses, and
// the ObjectMeta schemas it references come from the cluster's own documents.

const (
	objectMetaRef = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	refPrefix     = "#/components/schemas/"
	gvkExtension  = "x-kubernetes-group-version-kind" // k8s.io/apiserver/pkg/endpoints.RouteMetaGVK
)

// openapiV3Types are the types a CRD schema may name (apiextensions validation's openapiV3Types).
var openapiV3Types = sets.New("string", "number", "integer", "boolean", "array", "object")

// crdTypeConverters builds, for every version of every CRD (the first CRD of a kind wins, as in
// crdVersions), the type converter server-side apply converts its custom resources with, by
// group/version/kind. The models the kinds' schemas reference (ObjectMeta and what it
// references) are taken from `published`, the cluster's component schemas; the CRDs of a kind
// whose references are not all there are left out (their custom resources are converted with
// the documents, when those declare the kind, or not at all).
func crdTypeConverters(crds []json.RawMessage, published map[string]*spec.Schema) map[k8sschema.GroupVersionKind]managedfields.TypeConverter {
	// One converter per value of spec.preserveUnknownFields, as the server's is per CRD with it.
	models := map[bool]map[string]*spec.Schema{}
	kinds := map[bool][]k8sschema.GroupVersionKind{}
	seen := map[k8sschema.GroupVersionKind]bool{}
	for _, raw := range crds {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := json.Unmarshal(raw, crd); err != nil {
			continue
		}
		preserve := crd.Spec.PreserveUnknownFields
		for _, v := range crd.Spec.Versions {
			gvk := k8sschema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			if seen[gvk] || crd.Spec.Names.Kind == "" {
				continue
			}
			s, err := publishedSchema(crd, v.Name)
			if err != nil {
				continue
			}
			seen[gvk] = true
			if models[preserve] == nil {
				models[preserve] = map[string]*spec.Schema{}
			}
			models[preserve][modelName(gvk)] = s
			kinds[preserve] = append(kinds[preserve], gvk)
		}
	}
	out := map[k8sschema.GroupVersionKind]managedfields.TypeConverter{}
	for preserve, built := range models {
		if !withReferences(built, published) {
			continue
		}
		tc, err := managedfields.NewTypeConverter(built, preserve)
		if err != nil {
			continue
		}
		for _, gvk := range kinds[preserve] {
			out[gvk] = tc
		}
	}
	return out
}

// publishedSchema is the schema of a CRD version's kind as builder.BuildOpenAPIV3 builds it with
// the options the server converts apply patches with and publishes (builder.Options{}: nothing
// stripped): generateBuilder's structural schema, unfolded (a schema with a type OpenAPI v3 does
// not have, or not structural, is an object of anything), then buildKubeNative's apiVersion,
// kind and metadata properties, the embedded resources' (addEmbeddedProperties) and the
// x-kubernetes-group-version-kind extension, its references wrapped as builder3 wraps them.
func publishedSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (*spec.Schema, error) {
	var structural *structuralschema.Structural
	val, err := apihelpers.GetSchemaForVersion(crd, version)
	if err != nil {
		return nil, err
	}
	if val != nil && val.OpenAPIV3Schema != nil {
		internal := &apiextensionsinternal.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internal, nil); err != nil {
			return nil, err
		}
		if !hasInvalidTypes(internal.OpenAPIV3Schema) {
			if ss, err := structuralschema.NewStructural(internal.OpenAPIV3Schema); err == nil && len(structuralschema.ValidateStructural(nil, ss)) == 0 {
				structural = ss.Unfold()
			}
		}
	}
	var ret *spec.Schema
	if structural == nil {
		ret = &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}
	} else {
		ret = structural.ToKubeOpenAPI()
		ret.SetProperty("metadata", *spec.RefSchema(objectMetaRef).WithDescription(metav1.PartialObjectMetadata{}.SwaggerDoc()["metadata"]))
		typeMeta := metav1.TypeMeta{}.SwaggerDoc()
		ret.SetProperty("apiVersion", *spec.StringProperty().WithDescription(typeMeta["apiVersion"]))
		ret.SetProperty("kind", *spec.StringProperty().WithDescription(typeMeta["kind"]))
		addEmbeddedProperties(ret)
	}
	ret.AddExtension(gvkExtension, []interface{}{
		map[string]interface{}{"group": crd.Spec.Group, "version": version, "kind": crd.Spec.Names.Kind},
	})
	// As builder3 puts it in the document: a reference with siblings (metadata's description)
	// wrapped in allOf.
	return builderutil.WrapRefs(ret), nil
}

// addEmbeddedProperties is builder's (for OpenAPI v3): apiVersion, kind and metadata for every
// x-kubernetes-embedded-resource, kind and apiVersion required.
func addEmbeddedProperties(s *spec.Schema) {
	if s == nil {
		return
	}
	for k := range s.Properties {
		v := s.Properties[k]
		addEmbeddedProperties(&v)
		s.Properties[k] = v
	}
	if s.Items != nil {
		addEmbeddedProperties(s.Items.Schema)
	}
	if s.AdditionalProperties != nil {
		addEmbeddedProperties(s.AdditionalProperties.Schema)
	}
	if embedded, ok := s.Extensions.GetBool("x-kubernetes-embedded-resource"); ok && embedded {
		s.SetProperty("apiVersion", *spec.StringProperty().WithDescription(
			"apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources",
		))
		s.SetProperty("kind", *spec.StringProperty().WithDescription(
			"kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
		))
		s.SetProperty("metadata", *spec.RefSchema(objectMetaRef).WithDescription(metav1.PartialObjectMetadata{}.SwaggerDoc()["metadata"]))
		required := sets.New(s.Required...)
		if !required.Has("kind") {
			s.Required = append(s.Required, "kind")
		}
		if !required.Has("apiVersion") {
			s.Required = append(s.Required, "apiVersion")
		}
	}
}

// hasInvalidTypes is apiextensions validation's SchemaHasInvalidTypes: a type that is not one of
// OpenAPI v3's anywhere in the schema. Written out here because its package,
// pkg/apis/apiextensions/validation, would link 156 packages more than this program has (gRPC,
// OpenTelemetry's exporters, the apiserver's webhook client), as builder would.
func hasInvalidTypes(s *apiextensionsinternal.JSONSchemaProps) bool {
	if s == nil {
		return false
	}
	if len(s.Type) > 0 && !openapiV3Types.Has(s.Type) {
		return true
	}
	if s.Items != nil {
		if hasInvalidTypes(s.Items.Schema) {
			return true
		}
		for i := range s.Items.JSONSchemas {
			if hasInvalidTypes(&s.Items.JSONSchemas[i]) {
				return true
			}
		}
	}
	for _, list := range [][]apiextensionsinternal.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			if hasInvalidTypes(&list[i]) {
				return true
			}
		}
	}
	if hasInvalidTypes(s.Not) {
		return true
	}
	for _, m := range []map[string]apiextensionsinternal.JSONSchemaProps{s.Properties, s.PatternProperties, s.Definitions} {
		for k := range m {
			v := m[k]
			if hasInvalidTypes(&v) {
				return true
			}
		}
	}
	if s.AdditionalProperties != nil && hasInvalidTypes(s.AdditionalProperties.Schema) {
		return true
	}
	if s.AdditionalItems != nil && hasInvalidTypes(s.AdditionalItems.Schema) {
		return true
	}
	for _, d := range s.Dependencies {
		if hasInvalidTypes(d.Schema) {
			return true
		}
	}
	return false
}

// modelName is builder's gvkToModelName: the group reversed, then version and kind
// ("com.example.v1.Gizmo").
func modelName(gvk k8sschema.GroupVersionKind) string {
	parts := strings.Split(gvk.Group, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + gvk.Version + "." + gvk.Kind
}

// withReferences adds to `models` every schema of `published` they reference, transitively;
// false when one is not there.
func withReferences(models map[string]*spec.Schema, published map[string]*spec.Schema) bool {
	var pending []string
	for _, s := range models {
		pending = appendRefs(pending, s)
	}
	for len(pending) > 0 {
		name := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		if _, ok := models[name]; ok {
			continue
		}
		s, ok := published[name]
		if !ok || s == nil {
			return false
		}
		models[name] = s
		pending = appendRefs(pending, s)
	}
	return true
}

// appendRefs appends the component names the schema references anywhere in it.
func appendRefs(out []string, s *spec.Schema) []string {
	if s == nil {
		return out
	}
	if ref := s.Ref.String(); ref != "" {
		out = append(out, strings.TrimPrefix(ref, refPrefix))
	}
	for k := range s.Properties {
		v := s.Properties[k]
		out = appendRefs(out, &v)
	}
	for k := range s.PatternProperties {
		v := s.PatternProperties[k]
		out = appendRefs(out, &v)
	}
	if s.Items != nil {
		out = appendRefs(out, s.Items.Schema)
		for i := range s.Items.Schemas {
			out = appendRefs(out, &s.Items.Schemas[i])
		}
	}
	if s.AdditionalProperties != nil {
		out = appendRefs(out, s.AdditionalProperties.Schema)
	}
	if s.AdditionalItems != nil {
		out = appendRefs(out, s.AdditionalItems.Schema)
	}
	for _, list := range [][]spec.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			out = appendRefs(out, &list[i])
		}
	}
	return appendRefs(out, s.Not)
}
