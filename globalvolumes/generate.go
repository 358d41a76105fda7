package globalvolumes

//go:generate go tool -modfile=../tools/go.mod oapi-codegen -config oapi-codegen.yaml -templates ../internal/apispec/templates ../internal/apispec/rest-v2.json
