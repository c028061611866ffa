package schema

import (
	"encoding/json"
	"reflect"
	"testing"
)

// gizmos is the CRD of __tests__/integration/cluster/api-review.test.ts, whose expected words
// that test confirms against the real API server (each is in the apply's 422).
const gizmos = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"gizmos.example.com"},
"spec":{"group":"example.com","scope":"Namespaced",
 "names":{"plural":"gizmos","singular":"gizmo","kind":"Gizmo","listKind":"GizmoList"},
 "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{
  "type":"object","properties":{"spec":{"type":"object","required":["color","tier","min","max"],
   "properties":{"color":{"type":"string","enum":["red","green","blue"]},
    "tier":{"type":"string","default":"basic","enum":["basic","premium"]},
    "host":{"type":"string","pattern":"^[a-z]+$"},
    "contact":{"type":"string","format":"email"},
    "min":{"type":"integer","minimum":0},"max":{"type":"integer"}},
   "x-kubernetes-validations":[{"rule":"self.min <= self.max","message":"min must not exceed max"}]}}}}}]}}`

func gizmo(spec string) json.RawMessage {
	return json.RawMessage(`{"apiVersion":"example.com/v1","kind":"Gizmo","metadata":{"name":"g","namespace":"n"},"spec":` + spec + `}`)
}

func TestCustomResourcesAsTheServerValidatesThem(t *testing.T) {
	cases := []struct {
		spec string
		want []Finding
	}{
		{`{"color":"red","host":"web","contact":"ops@example.com","min":1,"max":3}`, []Finding{}},
		{`{"host":"web","min":1,"max":3}`, []Finding{{"spec.color", "spec.color: Required value"}}},
		{`{"color":"purple","min":1,"max":3}`, []Finding{{"spec.color", `spec.color: Unsupported value: "purple": supported values: "red", "green", "blue"`}}},
		{`{"color":"red","host":"WEB","min":1,"max":3}`, []Finding{{"spec.host", `spec.host: Invalid value: "WEB": spec.host in body should match '^[a-z]+$'`}}},
		{`{"color":"red","contact":"ops","min":1,"max":3}`, []Finding{{"spec.contact", `spec.contact: Invalid value: "ops": spec.contact in body must be of type email: "ops"`}}},
		{`{"color":"red","min":5,"max":1}`, []Finding{{"spec", `spec: Invalid value: min must not exceed max`}}},
	}
	for _, c := range cases {
		out, err := Check(Input{Schemas: map[string]json.RawMessage{}, CRDs: []json.RawMessage{json.RawMessage(gizmos)}, Objects: []json.RawMessage{gizmo(c.spec)}})
		if err != nil {
			t.Fatal(err)
		}
		if out.Results[0] == nil {
			t.Fatalf("%s: not checked", c.spec)
		}
		if got := *out.Results[0]; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", c.spec, got, c.want)
		}
	}
}
