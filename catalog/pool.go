package catalog

// GPUPool is a serverless GPU pool id, such as "ADA_24", as GPUType.Pool
// reports it: the ids of serverless.GPUPool, which an endpoint's GPUs are
// given as. Package catalog does not import package serverless (no surface
// imports another); convert with serverless.GPUPool(pool).
type GPUPool string
