// Package pods manages RunPod pods over the REST v2 API and tells how to
// reach them: the HTTP proxy URL of an exposed HTTP port, and the public
// IP and mapped port of an exposed TCP port. To run commands on a pod, copy
// files to and from it or forward its ports over SSH, use package
// [github.com/runpodkit/runpod-go/pods/podssh]
// (podssh.NewFromConfig(rp.Config())); to make sure a pod is deleted
// whatever happens to the program that made it, name it with package
// [github.com/runpodkit/runpod-go/lease].
//
//	pod, err := rp.Pods.Create(ctx, pods.CreatePodRequest{
//		Name:  "notebook",
//		Image: runpod.Ptr("runpod/pytorch:2.4.0"),
//		GPU:   &pods.CreateGPUConfig{ID: "NVIDIA GeForce RTX 4090"},
//		Ports: []string{"8888/http", "22/tcp"},
//	})
//	u, _ := rp.Pods.ProxyURL(pod.ID, 8888)          // https://<id>-8888.proxy.runpod.net
//	addr, err := rp.Pods.WaitForTCP(ctx, pod.ID, 22, option.Poll[*pods.Pod]{}) // 203.0.113.7:10341
//
// Service (runpod.Client.Pods) lists, reads, creates, updates and deletes
// pods, runs their actions (Start, Stop, Restart, Terminate) and streams
// their logs (Logs). The request and pod types are generated from the
// platform's REST v2 document and keep its names: CreatePodRequest,
// UpdatePodRequest, Pod, ListPodsParams, GetPodLogsParams. Requests are
// validated before anything is sent: a *errs.ValidationError names the
// field, such as "CreatePodRequest.Ports[0]".
//
// ProxyURL tells the HTTP proxy URL of an exposed HTTP port; TCPAddress
// tells the public address of an exposed TCP port once the pod runs, and
// WaitForTCP waits for it. When there is no address, the error says why:
// ErrNotRunning or ErrNotMapped (not yet), ErrPortNotExposed or ErrHTTPOnly
// (not ever).
//
// Create and actions are never repeated after an ambiguous failure
// (errs.ErrOutcomeUnknown); reads, updates and deletes are retried. A
// create (or a start) the platform refuses for want of capacity is a
// *errs.CapacityError matching errs.ErrNoCapacity: nothing was created.
// CreateWithFallback tries Candidates in turn (GPU types, data centers,
// clouds; CandidatesFrom makes them from the catalog), moving on only
// after such an answer, and CreateWhenAvailable waits for the catalog to
// show stock.
//
// # Capacity
//
// The platform answers a create it has no room for with HTTP 500 and a
// message ("There are no longer any instances available with the requested
// specifications"), and creates nothing. Such an answer is a
// *errs.CapacityError whose Reason tells a stock-out (errs.CapacityReasonOutOfStock: try
// elsewhere or later) from no host matching the request at all
// (errs.CapacityReasonNoMatchingHost: its CUDA versions or GPU count fit no machine).
// Only the wordings users of the platform have reported count; any other
// 500, and a gateway's 502 even with the same words, still matches
// errs.ErrOutcomeUnknown. The platform does not walk a list of GPU types
// on its own, so CreateWithFallback does, one create per candidate, and
// stops at the first answer that is not a stock-out; after exhaustion its
// *errs.PlacementError lists every attempt, and AllNoMatchingHost says when
// the request itself fits nowhere. clusters.Service.CreateWithFallback
// takes the same candidates.
//
// A GPU pod's create always carries its GPU count (1 when GPU.Count is nil
// or 0): the document gives the count a default, but the platform's
// scheduler places nothing without it. Ports are "<port>/http" or
// "<port>/tcp"; from SymmetricPortBase (70000) up, "70000/tcp" asks for a
// symmetric TCP port N, the same inside and out, which TCPAddress finds.
// An action the pod's status does not allow is a 409 *errs.APIError
// (Pod.Actions lists the allowed ones). Example: examples/pods.
//
// # Testing
//
// runpodtest's pods go PROVISIONING → STARTING → RUNNING on the fake's
// clock (WithPodBoot), have runtime ports only while running, answer 409
// to disallowed actions, stream logs, are placed where their GPU type has
// stock (SetGPUStock runs a data center out) and, with package
// runpodtest/fakessh attached (runpodtest.NewServer(fakessh.Serve())),
// serve SSH to podssh (fakessh.Listen opens a port for ssh, scp and sftp
// too).
package pods
