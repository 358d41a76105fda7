package pods

//go:generate go tool -modfile=../tools/go.mod oapi-codegen -config oapi-codegen.yaml openapi.yaml
