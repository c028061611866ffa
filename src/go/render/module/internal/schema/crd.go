package schema

import (
	"context"
	"encoding/json"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// crdVersion is what the API server builds, for one served version of a CustomResourceDefinition,
// to decode and validate its custom resources (apiextensions-apiserver's crdHandler and
// customResourceStrategy): the structural schema (pruning, defaulting, embedded ObjectMeta, list
// types), the OpenAPI schema validator (required, enum, format, pattern, bounds) and the CEL
// validator of its x-kubernetes-validations rules.
type crdVersion struct {
	preserveUnknownFields bool
	structural            *structuralschema.Structural
	validator             apiservervalidation.SchemaValidator
	cel                   *cel.Validator
}

// crdVersions reads CustomResourceDefinitions (apiextensions.k8s.io/v1, as JSON) into their
// versions by group/version/kind, as the server's crdHandler.getOrCreateServingInfoFor does. A CRD
// that does not decode, or a version whose schema is not structural, is left out: the server
// refuses such a CRD, and the check does not guess.
func crdVersions(crds []json.RawMessage) map[schema.GroupVersionKind]*crdVersion {
	out := map[schema.GroupVersionKind]*crdVersion{}
	for _, raw := range crds {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := json.Unmarshal(raw, crd); err != nil {
			continue
		}
		for _, v := range crd.Spec.Versions {
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			if _, seen := out[gvk]; seen {
				continue
			}
			if built, err := crdVersionOf(crd, v.Name); err == nil && built != nil {
				out[gvk] = built
			}
		}
	}
	return out
}

func crdVersionOf(crd *apiextensionsv1.CustomResourceDefinition, version string) (*crdVersion, error) {
	val, err := apihelpers.GetSchemaForVersion(crd, version)
	if err != nil || val == nil {
		return nil, err
	}
	internal := &apiextensionsinternal.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internal, nil); err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	if !crd.Spec.PreserveUnknownFields {
		s = s.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(s); err != nil {
			return nil, err
		}
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	return &crdVersion{
		preserveUnknownFields: crd.Spec.PreserveUnknownFields,
		structural:            s,
		validator:             validator,
		cel:                   cel.NewValidator(s, true, celconfig.PerCallLimit),
	}, nil
}

// validate decodes a custom resource as the server does before it stores it (pruning unknown
// fields, dropping nulls, defaulting), then validates it as customResourceStrategy.Validate does:
// the OpenAPI schema, embedded resources, list-type invariants, then — when none of those errors
// blocks them — the x-kubernetes-validations rules within the server's runtime cost budget. The
// object is changed in place. Its errors are the server's (field.Error), which a 422 lists as
// `<Kind>.<group> "<name>" is invalid: [<path>: <message>, …]`.
func (v *crdVersion) validate(obj map[string]interface{}) field.ErrorList {
	if !v.preserveUnknownFields {
		structuralpruning.Prune(obj, v.structural, true)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, v.structural)
	}
	structuraldefaulting.Default(obj, v.structural)
	var errs field.ErrorList
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, obj, v.validator)...)
	errs = append(errs, schemaobjectmeta.Validate(nil, obj, v.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, v.structural, obj)...)
	if v.cel != nil {
		// When an error blocks the rules, the server adds a note that it did not evaluate them
		// ("some validation rules were not checked because the object was invalid; …"), which
		// names no field: the findings are the errors that blocked them.
		if !hasBlockingErr(errs) {
			found, _ := v.cel.Validate(context.Background(), nil, v.structural, obj, nil, celconfig.RuntimeCELCostBudget)
			errs = append(errs, found...)
		}
	}
	return errs
}

// hasBlockingErr is customResourceStrategy's: errors after which the server evaluates no CEL rule.
func hasBlockingErr(errs field.ErrorList) bool {
	for _, err := range errs {
		if err.Type == field.ErrorTypeNotSupported || err.Type == field.ErrorTypeRequired || err.Type == field.ErrorTypeTooLong || err.Type == field.ErrorTypeTooMany || err.Type == field.ErrorTypeTypeInvalid {
			return true
		}
	}
	return false
}

func findingsOf(errs field.ErrorList) []Finding {
	out := make([]Finding, 0, len(errs))
	for _, e := range errs {
		out = append(out, Finding{Path: e.Field, Message: e.Error()})
	}
	return out
}
