// Package doccheck holds a test over the code blocks of the module's doc
// comments: every indented block in a doc comment of a non-generated,
// non-test Go file either parses as Go (a file, declarations, or
// statements of a function body) and type-checks as far as its free names
// allow, or is listed in notGo as text that is not Go (a table, a shell
// line, a path). Runnable examples are Example functions in
// example_test.go files, which `go test` compiles and runs; this test
// catches the blocks that are not.
package doccheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const module = "github.com/runpodkit/runpod-go"

// notGo lists the doc-comment blocks that are neither Go nor shell
// commands (see isShell), by file and first line with its spaces collapsed:
// tables, paths, wire formats and messages.
var notGo = map[string]bool{
	"doc.go: what happened idempotent call other calls":                                                                                                 true,
	"internal/apispec/derive/supplement.go: {":                                                                                                          true,
	"internal/transport/call.go: what happened idempotent not idempotent":                                                                               true,
	"internal/transport/transport.go: service method → DoJSON/DoBody/Do → do → retryablehttp.Client.Do →":                                               true,
	"option/profile.go: [default]":                                                                                                                      true,
	"otel/doc.go: runpod.client.call.duration histogram, s one per call, to the end of its body":                                                        true,
	"runpodtest/fakes3/s3auth.go: AWS4-HMAC-SHA256 Credential=<key>/<yyyymmdd>/<region>/<service>/aws4_request, SignedHeaders=<h1;h2>, Signature=<hex>": true,
	"runpodtest/fakessh/ssh.go: echo [args…] prints its arguments":                                                                                      true,
	"runpodtest/fakessh/sshport.go: a, err := fakessh.Listen(srv, id)":                                                                                  true,
	"serverless/tracker/filelog.go: {\"format\":\"runpod-go/tracker\",\"version\":2}":                                                                   true,
	"serverless/webhook/token.go: \"runpod-go webhook v1\" NUL expiry NUL nonce NUL endpoint NUL path":                                                  true,
	"serverless/webhook/token.go: v1.<expiry>.<nonce>.<endpoint>.<mac>":                                                                                 true,
	"volumes/files/doc.go: on a pod: /workspace/models/llama.gguf":                                                                                      true,
}

// isShell reports whether a block is shell commands: every line
// (continuation lines joined) runs, after any VAR=value assignments, one of
// the programs a reader of these docs runs.
func isShell(text string) bool {
	for line := range strings.Lines(strings.ReplaceAll(text, "\\\n", " ")) {
		if !shellLine.MatchString(line) {
			return false
		}
	}
	return true
}

var shellLine = regexp.MustCompile(`^(?:[A-Z_0-9]+=\S*\s+)*(?:go|curl|aws|s3cmd|rclone|ssh|scp|sftp|cd|bash)\s`)

// block is one code block of a doc comment.
type block struct {
	file string // relative to the module's root, slash-separated
	line int    // of the comment
	text string
}

func (b block) key() string {
	first, _, _ := strings.Cut(strings.TrimSpace(b.text), "\n")
	return b.file + ": " + strings.Join(strings.Fields(first), " ")
}

func (b block) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// placeholder stands for "…", which doc blocks write where code is left
// out.
const placeholder = "ELIDED"

// TestDocCodeBlocksAreGo: every code block of a doc comment parses as Go
// (or is listed in notGo), and where it parses it type-checks against the
// module's packages without an error a reader would copy: an assignment
// of the wrong number of results, a field or method that does not exist,
// a name a package does not export, or a call with the wrong number of
// arguments.
func TestDocCodeBlocksAreGo(t *testing.T) {
	blocks := docBlocks(t, filepath.Join("..", ".."))
	if len(blocks) < 50 {
		t.Fatalf("found only %d doc-comment code blocks", len(blocks))
	}
	var tc *typeChecker
	if !testing.Short() {
		tc = newTypeChecker(t)
	}
	used := map[string]bool{}
	var problems []string
	for _, b := range blocks {
		if notGo[b.key()] {
			used[b.key()] = true
			continue
		}
		if isShell(b.text) {
			continue
		}
		f, fset, err := parseBlock(b.text)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: does not parse as Go (%v); make it Go, or list it in notGo as %q:\n%s", b, err, b.key(), indent(b.text)))
			continue
		}
		if tc != nil {
			for _, e := range tc.check(fset, f) {
				problems = append(problems, fmt.Sprintf("%s: %s:\n%s", b, e, indent(b.text)))
			}
		}
	}
	for k := range notGo {
		if !used[k] {
			problems = append(problems, "notGo lists a block no doc comment has: "+k)
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		t.Errorf("%d doc-comment code blocks are wrong:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

// TestREADMECodeBlocksAreGo: the README's Go blocks pass the same checks
// as the doc comments' (its first block, examples/hello, is compiled and
// run by that package's test).
func TestREADMECodeBlocksAreGo(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var tc *typeChecker
	if !testing.Short() {
		tc = newTypeChecker(t)
	}
	blocks := strings.Split(string(readme), "```go\n")[1:]
	if len(blocks) < 5 {
		t.Fatalf("found only %d Go blocks in README.md", len(blocks))
	}
	for i, b := range blocks {
		src, _, _ := strings.Cut(b, "```")
		f, fset, err := parseBlock(src)
		if err != nil {
			t.Errorf("README.md's Go block %d does not parse (%v):\n%s", i+1, err, indent(src))
			continue
		}
		if tc != nil {
			for _, e := range tc.check(fset, f) {
				t.Errorf("README.md's Go block %d: %s:\n%s", i+1, e, indent(src))
			}
		}
	}
}

// TestTheCheckHasTeeth: the two-result call assigned to one variable, the
// mistake this test was written for, is caught; a fragment with elided
// parts and undeclared names is not.
func TestTheCheckHasTeeth(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the module's export data")
	}
	tc := newTypeChecker(t)
	for src, want := range map[string]string{
		"vol, err := files.NewFromConfig(rp.Config()).Volume(ctx, \"id\")\nerr = vol.Upload(ctx, \"a\", \"./a\")": "assignment mismatch",
		"pod, err := rp.Pods.Get(ctx, id)\nfmt.Println(pod.NoSuchField)":                                          "has no field or method",
		"x := serverless.NoSuchName": "undefined: serverless.NoSuchName",
		"job, err := rp.Serverless.Queue(id).RunSync(ctx, serverless.RunParams{Input: in})":                                    "not enough arguments",
		"_ = pods.CreatePodRequest{Nmae: \"x\"}":                                                                               "unknown field",
		"for e, err := range vol.List(ctx, \"models/\") { … }\nx := pods.CreatePodRequest{Name: name, …}\nif err != nil { … }": "",
	} {
		f, fset, err := parseBlock(src)
		if err != nil {
			t.Fatalf("%q does not parse: %v", src, err)
		}
		got := strings.Join(tc.check(fset, f), "\n")
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%q: got %q, want %q", src, got, want)
		}
	}
}

// docBlocks returns the code blocks of every doc comment (package,
// declarations, specs and fields) in the module's non-test, non-generated
// Go files, outside testdata, tools and other modules.
func docBlocks(t *testing.T, root string) []block {
	t.Helper()
	var out []block
	var p comment.Parser
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			base := d.Name()
			if rel != "." && (strings.HasPrefix(base, ".") || base == "testdata" || base == "tools") {
				return filepath.SkipDir
			}
			if rel != "." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && base != "otel" {
					return filepath.SkipDir // another module (otel's docs are checked with ours)
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		for _, cg := range docComments(f) {
			for _, blk := range p.Parse(cg.Text()).Content {
				if code, ok := blk.(*comment.Code); ok {
					out = append(out, block{file: filepath.ToSlash(rel), line: fset.Position(cg.Pos()).Line, text: code.Text})
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// docComments returns the doc comments of f: the package's, and those of
// its declarations, specs, fields and interface methods.
func docComments(f *ast.File) []*ast.CommentGroup {
	var out []*ast.CommentGroup
	add := func(cg *ast.CommentGroup) {
		if cg != nil {
			out = append(out, cg)
		}
	}
	add(f.Doc)
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			add(n.Doc)
			return false
		case *ast.GenDecl:
			add(n.Doc)
		case *ast.TypeSpec:
			add(n.Doc)
		case *ast.ValueSpec:
			add(n.Doc)
		case *ast.Field:
			add(n.Doc)
		}
		return true
	})
	return out
}

// parseBlock parses src, with "…" as a placeholder, as a file, as
// declarations, or as the statements of a function body, and returns the
// file it makes.
func parseBlock(src string) (*ast.File, *token.FileSet, error) {
	src = strings.ReplaceAll(src, "…", placeholder)
	fset := token.NewFileSet()
	if f, err := parser.ParseFile(fset, "block.go", src, 0); err == nil {
		return f, fset, nil // a whole file
	}
	f, errDecl := parser.ParseFile(fset, "block.go", "package block\n"+src, 0)
	if errDecl == nil {
		return f, fset, nil
	}
	f, err := parser.ParseFile(fset, "block.go", "package block\nfunc _() {\n"+src+"\n}\n", 0)
	if err != nil {
		return nil, nil, err
	}
	return f, fset, nil
}

// fatal is what a reader would copy and the compiler refuse: the errors
// the type checker reports that no missing context can explain.
var fatal = regexp.MustCompile(`assignment mismatch|has no field or method|undefined: [a-z]\w*\.\w+|(not enough|too many) arguments in call|unknown field`)

// typeChecker type-checks blocks against the module's packages, from their
// export data.
type typeChecker struct {
	imp   types.Importer
	paths map[string]string // package name → import path, for the names blocks use
}

// common are the standard packages doc blocks use, by the name they use.
var common = map[string]string{
	"context": "context", "errors": "errors", "fmt": "fmt", "http": "net/http", "io": "io",
	"json": "encoding/json", "log": "log", "os": "os", "filepath": "path/filepath",
	"slog": "log/slog", "strings": "strings", "time": "time", "iter": "iter", "bytes": "bytes",
	"exec": "os/exec", "signal": "os/signal", "sync": "sync", "testing": "testing",
}

func newTypeChecker(t *testing.T) *typeChecker {
	t.Helper()
	args := []string{"list", "-export", "-deps", "-json=ImportPath,Name,Export,Standard", module + "/..."}
	for _, p := range common {
		args = append(args, p)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = filepath.Join("..", "..")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	exports := map[string]string{}
	paths := map[string]string{}
	for name, path := range common {
		paths[name] = path
	}
	dec := json.NewDecoder(&out)
	for {
		var p struct{ ImportPath, Name, Export string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if strings.HasPrefix(p.ImportPath, module) && !strings.Contains(p.ImportPath, "internal") && !strings.Contains(p.ImportPath, "/examples/") {
			paths[p.Name] = p.ImportPath
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	return &typeChecker{imp: imp, paths: paths}
}

// check type-checks f, a parsed block, with an import for every package
// name it uses as a qualifier and, when the block does not declare them,
// rp (a *runpod.Client), ctx (a context.Context) and srv (a
// *runpodtest.Server) declared, and returns the fatal errors.
func (tc *typeChecker) check(fset *token.FileSet, f *ast.File) []string {
	declared := map[string]bool{}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		case *ast.Ident:
			used[n.Name] = true
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						declared[id.Name] = true
					}
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				declared[id.Name] = true
			}
		case *ast.Field:
			for _, id := range n.Names {
				declared[id.Name] = true
			}
		case *ast.FuncDecl:
			declared[n.Name.Name] = true
		}
		return true
	})
	imported := map[string]bool{}
	for _, s := range f.Imports {
		name := strings.Trim(s.Path.Value, `"`)
		name = name[strings.LastIndex(name, "/")+1:]
		if s.Name != nil {
			name = s.Name.Name
		}
		imported[name] = true
	}
	var prelude []ast.Decl
	var specs []ast.Spec
	need := func(name string) bool { return used[name] && !declared[name] && !imported[name] }
	for name := range used {
		if path, ok := tc.paths[name]; ok && need(name) {
			specs = append(specs, &ast.ImportSpec{Path: &ast.BasicLit{Kind: token.STRING, Value: fmt.Sprintf("%q", path)}})
			imported[name] = true
		}
	}
	for name, typ := range map[string][2]string{
		"rp":  {"runpod", "Client"},
		"ctx": {"context", "Context"},
		"srv": {"runpodtest", "Server"},
	} {
		if !need(name) {
			continue
		}
		if !imported[typ[0]] {
			specs = append(specs, &ast.ImportSpec{Name: ast.NewIdent(typ[0]), Path: &ast.BasicLit{Kind: token.STRING, Value: fmt.Sprintf("%q", tc.paths[typ[0]])}})
			imported[typ[0]] = true
		}
		var x ast.Expr = &ast.SelectorExpr{X: ast.NewIdent(typ[0]), Sel: ast.NewIdent(typ[1])}
		if name != "ctx" {
			x = &ast.StarExpr{X: x}
		}
		prelude = append(prelude, &ast.GenDecl{Tok: token.VAR, Specs: []ast.Spec{&ast.ValueSpec{Names: []*ast.Ident{ast.NewIdent(name)}, Type: x}}})
	}
	if len(specs) > 0 {
		prelude = append([]ast.Decl{&ast.GenDecl{Tok: token.IMPORT, Lparen: 1, Specs: specs}}, prelude...)
	}
	f.Decls = append(prelude, f.Decls...)
	var errs []string
	conf := types.Config{Importer: tc.imp, Error: func(err error) {
		msg := err.(types.Error).Msg
		if fatal.MatchString(msg) && !strings.Contains(msg, placeholder) {
			errs = append(errs, msg)
		}
	}}
	_, _ = conf.Check("block", fset, []*ast.File{f}, nil)
	return errs
}

func indent(s string) string {
	return "\t" + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n\t")
}
