package envprint

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

type inner struct {
	Env  map[string]string
	Port int
}

type request struct {
	Name    string
	Count   *int
	Skipped *string
	Tags    []string
	Env     *map[string]string
	Inner   *inner
	Items   []inner
	hidden  string
}

// TestStruct: set fields only, pointers followed, strings quoted, every
// Env (a map, a pointer to one, one in a nested struct or slice) shown by
// its names alone.
func TestStruct(t *testing.T) {
	n := 2
	env := map[string]string{"B": "tok-1", "A": "tok-2"}
	r := request{Name: `x"y`, Count: &n, Tags: []string{"a"}, Env: &env, Inner: &inner{Env: env, Port: 22},
		Items: []inner{{Env: map[string]string{"C": "tok-3"}}}, hidden: "tok-4"}
	got := Struct(r)
	assert.Equal(t, `request{Name:"x\"y" Count:2 Tags:["a"] Env:{"A":[REDACTED] "B":[REDACTED]} `+
		`Inner:inner{Env:{"A":[REDACTED] "B":[REDACTED]} Port:22} Items:[inner{Env:{"C":[REDACTED]} Port:0}]}`, got)
	assert.NotContains(t, got, "tok-")
	assert.Equal(t, got, Struct(&r), "a pointer prints its struct")
	assert.Equal(t, "<nil>", Struct((*request)(nil)))
	assert.Equal(t, `request{Name:""}`, Struct(request{}), "nil pointers, slices and maps are left out")
}
