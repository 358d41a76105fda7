package graphql

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// typeLevelOnly are the operations allowed to select a field observed on
// its type but not on the same path, with the reason.
var typeLevelOnly = map[string]string{
	"EndpointSettings": "run only by Update, whose failure to read refuses the save (GraphQLSettingsUnreadError)",
}

// observed is observed-fields.txt: for each (type, field), the paths it
// was seen on.
type observed struct {
	paths   map[[2]string]map[string]bool
	sources map[string]bool
}

func (o observed) onType(typ, field string) bool { return len(o.paths[[2]string{typ, field}]) > 0 }

func (o observed) onPath(path, typ, field string) bool { return o.paths[[2]string{typ, field}][path] }

// readObserved reads observed-fields.txt (see its header for the format),
// checking that every line is well formed and every source key defined.
func readObserved(t *testing.T) observed {
	t.Helper()
	f, err := os.Open("observed-fields.txt")
	require.NoError(t, err)
	defer f.Close()
	o := observed{paths: map[[2]string]map[string]bool{}, sources: map[string]bool{}}
	type use struct {
		line int
		key  string
	}
	var uses []use
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Fields(line)
		switch {
		case cols[0] == "source" && len(cols) >= 5:
			require.False(t, o.sources[cols[1]], "line %d: source %s defined twice", n, cols[1])
			o.sources[cols[1]] = true
		case cols[0] == "select" && len(cols) >= 5:
			path, typ, field := cols[1], cols[2], cols[3]
			k := [2]string{typ, field}
			if o.paths[k] == nil {
				o.paths[k] = map[string]bool{}
			}
			require.False(t, o.paths[k][path], "line %d: %s.%s on %s listed twice", n, typ, field, path)
			o.paths[k][path] = true
			for _, s := range cols[4:] {
				uses = append(uses, use{n, s})
			}
		default:
			t.Fatalf("observed-fields.txt line %d: want \"source <key> <repository> <file> <place>\" or \"select <path> <type> <field> <source>...\", got %q", n, line)
		}
	}
	require.NoError(t, sc.Err())
	for _, u := range uses {
		assert.True(t, o.sources[u.key], "observed-fields.txt line %d: source %q is not defined", u.line, u.key)
	}
	require.NotEmpty(t, o.paths)
	return o
}

// schema is schema.graphql's type definitions, by name. (gqlparser's
// validator would need a module the SDK does not otherwise use; genqlient
// validates the operations against this schema when it generates, and
// runpodtest against the fake's.)
type schema map[string]*ast.Definition

func loadSchema(t *testing.T) schema {
	t.Helper()
	b, err := os.ReadFile("schema.graphql")
	require.NoError(t, err)
	doc, gerr := parser.ParseSchema(&ast.Source{Name: "schema.graphql", Input: string(b)})
	require.NoError(t, gerr)
	s := schema{}
	for _, d := range doc.Definitions {
		s[d.Name] = d
	}
	for _, root := range []string{"Query", "Mutation"} {
		require.Contains(t, s, root)
	}
	return s
}

func (s schema) field(typ, name string) *ast.FieldDefinition {
	if d := s[typ]; d != nil {
		return d.Fields.ForName(name)
	}
	return nil
}

func parseOperations(t *testing.T, doc string) *ast.QueryDocument {
	t.Helper()
	q, err := parser.ParseQuery(&ast.Source{Name: "operations.graphql", Input: doc})
	require.NoError(t, err)
	return q
}

// selection is one field an operation selects.
type selection struct {
	op, path, typ, field string
}

// selections walks every operation of doc down to its (path, parent type,
// field) triples, types resolved in s; a fragment, which would name a
// platform type, and a field s does not have are reported as problems.
func selections(s schema, doc *ast.QueryDocument) (out []selection, problems []string) {
	var walk func(op, path, typ string, set ast.SelectionSet)
	walk = func(op, path, typ string, set ast.SelectionSet) {
		for _, sel := range set {
			f, ok := sel.(*ast.Field)
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: a fragment at %s; list fields inline", op, path))
				continue
			}
			if f.Name == "__typename" {
				continue
			}
			def := s.field(typ, f.Name)
			if def == nil {
				problems = append(problems, fmt.Sprintf("%s: %s.%s (on %s) is not in schema.graphql", op, typ, f.Name, path))
				continue
			}
			out = append(out, selection{op: op, path: path, typ: typ, field: f.Name})
			child := f.Name
			if !strings.HasPrefix(path, "(") {
				child = path + "." + f.Name
			}
			walk(op, child, def.Type.Name(), f.SelectionSet)
		}
	}
	for _, op := range doc.Operations {
		root := map[ast.Operation]string{ast.Query: "Query", ast.Mutation: "Mutation"}[op.Operation]
		walk(op.Name, "("+string(op.Operation)+")", root, op.SelectionSet)
	}
	return out, problems
}

// unobserved lists the selections of doc that observed-fields.txt does
// not back: a (type, field) pair seen nowhere, or, outside typeLevelOnly,
// a field not seen on the path it is selected on.
func unobserved(s schema, doc *ast.QueryDocument, o observed) []string {
	sel, problems := selections(s, doc)
	for _, s := range sel {
		switch {
		case !o.onType(s.typ, s.field):
			problems = append(problems, fmt.Sprintf("%s selects %s.%s (on %s), which no client of the platform selects", s.op, s.typ, s.field, s.path))
		case typeLevelOnly[s.op] == "" && !o.onPath(s.path, s.typ, s.field):
			problems = append(problems, fmt.Sprintf("%s selects %s on %s, where no client of the platform selects it", s.op, s.field, s.path))
		}
	}
	return problems
}

// TestSelectionsObserved: every field the SDK selects is one the
// platform's own clients or its documentation select, on the same path
// (EndpointSettings: on the same type).
func TestSelectionsObserved(t *testing.T) {
	o := readObserved(t)
	schema := loadSchema(t)
	ops, err := os.ReadFile("operations.graphql")
	require.NoError(t, err)
	doc := parseOperations(t, string(ops))
	for _, p := range unobserved(schema, doc, o) {
		t.Error(p)
	}

	names := make([]string, 0, len(doc.Operations))
	for _, op := range doc.Operations {
		names = append(names, op.Name)
	}
	assert.ElementsMatch(t, []string{"SaveEndpoint", "ListEndpoints", "EndpointSettings", "DeleteEndpoint", "UpdateEndpointTemplate"}, names)
	for op := range typeLevelOnly {
		assert.Contains(t, names, op, "typeLevelOnly names an operation that does not exist")
	}
}

// TestListEndpointsSelectsOnlyListFields: List, Get and Delete run
// ListEndpoints, so on myself.endpoints (and below) it selects only
// fields some client selects on that very path, never one seen only on
// saveEndpoint's answer.
func TestListEndpointsSelectsOnlyListFields(t *testing.T) {
	o := readObserved(t)
	schema := loadSchema(t)
	ops, err := os.ReadFile("operations.graphql")
	require.NoError(t, err)
	sel, problems := selections(schema, parseOperations(t, string(ops)))
	require.Empty(t, problems)
	var listed []string
	for _, s := range sel {
		if s.op != "ListEndpoints" {
			continue
		}
		if s.path == "myself.endpoints" {
			listed = append(listed, s.field)
		}
		assert.True(t, o.onPath(s.path, s.typ, s.field), "ListEndpoints selects %s on %s", s.field, s.path)
	}
	assert.Contains(t, listed, "id")
	for _, settingOnly := range []string{"flashBootType", "allowedCudaVersions", "instanceIds", "networkVolumeIds", "executionTimeoutMs", "minCudaVersion", "modelReferences"} {
		assert.NotContains(t, listed, settingOnly, "read by EndpointSettings, not by the list")
	}
}

// TestObservedCheckHasTeeth: the check refuses a field selected on a path
// where no client selects it, a field no client selects at all, and a
// fragment.
func TestObservedCheckHasTeeth(t *testing.T) {
	o := readObserved(t)
	schema := loadSchema(t)
	for name, tc := range map[string]struct{ doc, want string }{
		"saveEndpoint-only field in the list": {
			doc:  `query ListEndpoints { myself { endpoints { id flashBootType } } }`,
			want: "ListEndpoints selects flashBootType on myself.endpoints",
		},
		"list-only field on saveEndpoint": {
			doc:  `mutation SaveEndpoint($input: EndpointInput!) { saveEndpoint(input: $input) { id pods { desiredStatus } } }`,
			want: "SaveEndpoint selects pods on saveEndpoint",
		},
		"field no client selects": {
			doc:  `query EndpointSettings { myself { endpoints { id workersStandby version } id } }`,
			want: "EndpointSettings selects User.id (on myself), which no client",
		},
		"field the schema lacks": {
			doc:  `query ListEndpoints { myself { endpoints { id nope } } }`,
			want: "Endpoint.nope (on myself.endpoints) is not in schema.graphql",
		},
		"fragment": {
			doc:  `query ListEndpoints { myself { endpoints { ...F } } } fragment F on Endpoint { id }`,
			want: "ListEndpoints: a fragment at myself.endpoints",
		},
	} {
		t.Run(name, func(t *testing.T) {
			problems := unobserved(schema, parseOperations(t, tc.doc), o)
			require.NotEmpty(t, problems)
			assert.True(t, slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) }), "%q not in %q", tc.want, problems)
		})
	}
}

// TestObservedFieldsInSchema: every observed (type, field) is in
// schema.graphql, so that a typo in observed-fields.txt cannot pass
// unseen; and workersStandby, which saveEndpoint refuses, is no input.
func TestObservedFieldsInSchema(t *testing.T) {
	o := readObserved(t)
	schema := loadSchema(t)
	for k := range o.paths {
		assert.NotNil(t, schema.field(k[0], k[1]), "%s.%s is not in schema.graphql", k[0], k[1])
	}
	in := schema["EndpointInput"]
	require.NotNil(t, in)
	assert.Nil(t, in.Fields.ForName("workersStandby"), "saveEndpoint refuses workersStandby")
	assert.Equal(t, "String", in.Fields.ForName("allowedCudaVersions").Type.Name(), "comma-joined, as runpod-python sends it")
}
