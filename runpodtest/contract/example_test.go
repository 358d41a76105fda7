package contract_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// A server with Check refuses a request the REST v2 document does not
// allow, as the platform does, naming the field.
func Example() {
	srv := runpodtest.NewServer(contract.Check())
	defer srv.Close()

	body := `{"name":"p","image":"x","computeType":"CPU","cpu":{"id":"cpu3c","vcpuCount":2,"memory":4}}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v2/pods", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var problem struct {
		Errors []string `json:"errors"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&problem)
	fmt.Println(resp.StatusCode, problem.Errors)
	fmt.Println(srv.Acted("POST /v2/pods"))
	// Output:
	// 422 [$.cpu.memory: property not allowed]
	// 0
}

// TestWithoutCheck: a server without Check refuses nothing for the
// document's sake: the same request reaches the route's handler.
func TestWithoutCheck(t *testing.T) {
	for _, tc := range []struct {
		opts  []runpodtest.Option
		acted int
	}{{[]runpodtest.Option{contract.Check()}, 0}, {nil, 1}} {
		srv := runpodtest.NewServer(tc.opts...)
		body := `{"name":"p","image":"x","computeType":"CPU","cpu":{"id":"cpu3c","vcpuCount":2,"memory":4}}`
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v2/pods", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+srv.APIKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, tc.acted, srv.Acted("POST /v2/pods"))
		srv.Close()
	}
}
