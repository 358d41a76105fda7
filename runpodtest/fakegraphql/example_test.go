package fakegraphql_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakegraphql"
)

// ExampleServe serves the GraphQL API beside the REST v2 routes: an
// endpoint saved over GraphQL is the one REST v2 lists.
func ExampleServe() {
	srv := runpodtest.NewServer(fakegraphql.Serve())
	defer srv.Close()
	srv.AddTemplate("tmpl-1")

	req, _ := http.NewRequest("POST", srv.URL+"/graphql", strings.NewReader(
		`{"query":"mutation { saveEndpoint(input: {name: \"hello\", templateId: \"tmpl-1\", gpuIds: \"ADA_24\"}) { name } }"}`))
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Print(string(body))
	fmt.Println(len(srv.Endpoints()), fakegraphql.Mutations(srv, "saveEndpoint"))
	// Output:
	// {"data":{"saveEndpoint":{"name":"hello"}}}
	// 1 1
}

// ExampleRetire retires the API at run time: POST /graphql answers 410
// Gone, as the platform will in early 2027, and REST v2 serves on.
func ExampleRetire() {
	srv := runpodtest.NewServer(fakegraphql.Serve())
	defer srv.Close()
	fakegraphql.Retire(srv, true)

	resp, err := srv.Client().Post(srv.URL+"/graphql", "application/json", strings.NewReader(`{"query":"{ myself { id } }"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	fmt.Println(resp.StatusCode, srv.Count(fakegraphql.Route))
	// Output: 410 1
}
