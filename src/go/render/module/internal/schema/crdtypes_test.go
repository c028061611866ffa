package schema

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	generatedopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// parts is the Part CRD of __tests__/integration/cluster/api-review.test.ts, which holds these
// findings equal to those from the cluster's published document of the CRD, and each equal to
// the words the server's apply refuses the custom resource with.
const parts = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"parts.example.com"},
"spec":{"group":"example.com","scope":"Namespaced",
 "names":{"plural":"parts","singular":"part","kind":"Part","listKind":"PartList"},
 "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{
  "type":"object","properties":{"spec":{"type":"object","properties":{
   "count":{"type":"integer"},
   "labels":{"type":"object","additionalProperties":{"type":"string"}},
   "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
    "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"port":{"type":"integer"}}}},
   "owner":{"type":"object","properties":{"name":{"type":"string"}}},
   "template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
   "extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}}}]}}`

// metaDocument is a document holding ObjectMeta and what it references, as the API server
// generates them (apiextensions-apiserver's generated OpenAPI definitions, the ones its builder
// puts in every CRD's document).
func metaDocument(t *testing.T) json.RawMessage {
	defs := generatedopenapi.GetOpenAPIDefinitions(func(name string) spec.Ref {
		return spec.MustCreateRef(refPrefix + name)
	})
	schemas := map[string]spec.Schema{}
	for _, name := range []string{"ObjectMeta", "ManagedFieldsEntry", "OwnerReference", "Time", "FieldsV1"} {
		def, ok := defs["io.k8s.apimachinery.pkg.apis.meta.v1."+name]
		if !ok {
			t.Fatalf("no generated definition of %s", name)
		}
		schemas["io.k8s.apimachinery.pkg.apis.meta.v1."+name] = def.Schema
	}
	doc, err := json.Marshal(map[string]interface{}{"components": map[string]interface{}{"schemas": schemas}})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func part(name, body string) json.RawMessage {
	return json.RawMessage(`{"apiVersion":"example.com/v1","kind":"Part","metadata":{"name":"` + name + `","namespace":"n"},` + body + `}`)
}

func TestCustomResourcesConvertedWithTheSchemaTheirCRDPublishes(t *testing.T) {
	template := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t"},"data":{}}`
	cases := []struct {
		object json.RawMessage
		want   []Finding
	}{
		{part("fine", `"spec":{"count":1,"labels":{"a":"b"},"ports":[{"name":"http","port":80}],"owner":{"name":"o"},"template":`+template+`,"extra":{"anything":[1,"two"]}}`), []Finding{}},
		{part("undeclared", `"spec":{"count":1,"colour":"red"}`), []Finding{{".spec.colour", ".spec.colour: field not declared in schema"}}},
		{part("top", `"spec":{"count":1},"specs":{}`), []Finding{{".specs", ".specs: field not declared in schema"}}},
		{part("nested", `"spec":{"owner":{"name":"o","uid":"u"}}`), []Finding{{".spec.owner.uid", ".spec.owner.uid: field not declared in schema"}}},
		{part("embedded", `"spec":{"template":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t","labelz":{}},"data":{}}}`), []Finding{{".spec.template.metadata.labelz", ".spec.template.metadata.labelz: field not declared in schema"}}},
		{part("count", `"spec":{"count":"three"}`), []Finding{{".spec.count", ".spec.count: expected numeric (int or float), got string"}}},
		{part("label", `"spec":{"labels":{"a":1}}`), []Finding{{".spec.labels.a", ".spec.labels.a: expected string, got &value.valueUnstructured{Value:1}"}}},
		{part("ports", `"spec":{"ports":[{"name":"http","port":80},{"name":"http","port":81}]}`), []Finding{{".spec.ports", `.spec.ports: duplicate entries for key [name="http"]`}}},
	}
	objects := make([]json.RawMessage, len(cases))
	for i, c := range cases {
		objects[i] = c.object
	}
	out, err := Check(Input{
		Schemas: map[string]json.RawMessage{"apiextensions.k8s.io/v1": metaDocument(t)},
		CRDs:    []json.RawMessage{json.RawMessage(parts)},
		Objects: objects,
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if out.Results[i] == nil {
			t.Fatalf("%s: not checked", c.object)
		}
		if got := *out.Results[i]; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", c.object, got, c.want)
		}
	}
}

// Without ObjectMeta among the documents there is no converting a custom resource: its CRD's
// validation still runs.
func TestCustomResourcesWithoutObjectMetaAreValidatedOnly(t *testing.T) {
	out, err := Check(Input{
		Schemas: map[string]json.RawMessage{},
		CRDs:    []json.RawMessage{json.RawMessage(parts)},
		Objects: []json.RawMessage{part("undeclared", `"spec":{"count":1,"colour":"red"}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Results[0] == nil || len(*out.Results[0]) != 0 {
		t.Fatalf("got %#v, want no finding (pruned by the CRD's validation)", out.Results[0])
	}
}

// The schema builder.BuildOpenAPIV3 puts in a CRD's document: apiVersion, kind and metadata
// beside the CRD's own properties, the embedded resource's the same, and the kind's extension,
// under the model name builder gives it.
func TestPublishedSchemaHasTheKubernetesProperties(t *testing.T) {
	s := partSchema(t)
	for _, p := range []string{"apiVersion", "kind", "metadata", "spec"} {
		if _, ok := s.Properties[p]; !ok {
			t.Errorf("no property %s", p)
		}
	}
	embedded := s.Properties["spec"].Properties["template"]
	metadata := embedded.Properties["metadata"]
	if len(metadata.AllOf) != 1 || metadata.AllOf[0].Ref.String() != objectMetaRef || !reflect.DeepEqual(embedded.Required, []string{"kind", "apiVersion"}) {
		t.Errorf("embedded resource: %#v", embedded)
	}
	gvk, _ := json.Marshal(s.Extensions[gvkExtension])
	if string(gvk) != `[{"group":"example.com","kind":"Part","version":"v1"}]` {
		t.Errorf("extension: %s", gvk)
	}
	if got := modelName(k8sschema.GroupVersionKind{Group: "parts.example.com", Version: "v1", Kind: "Part"}); got != "com.example.parts.v1.Part" {
		t.Errorf("model name %s", got)
	}
}

// testdata/part-published.json is the Part schema of the /openapi/v3/apis/example.com/v1
// document kube-apiserver v1.37.2 published for the CRD above, as read from the test cluster.
func TestPublishedSchemaIsTheServers(t *testing.T) {
	built := partSchema(t)
	text, err := json.Marshal(built)
	if err != nil {
		t.Fatal(err)
	}
	served, err := os.ReadFile("testdata/part-published.json")
	if err != nil {
		t.Fatal(err)
	}
	var got, want interface{}
	if err := json.Unmarshal(text, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(served, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		pretty, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("built:\n%s\nserved:\n%s", pretty, served)
	}
}

// partSchema is publishedSchema of the Part CRD's v1.
func partSchema(t *testing.T) *spec.Schema {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal([]byte(parts), crd); err != nil {
		t.Fatal(err)
	}
	s, err := publishedSchema(crd, "v1")
	if err != nil {
		t.Fatal(err)
	}
	return s
}
