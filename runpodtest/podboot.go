package runpodtest

import (
	"fmt"
	"maps"
	"time"

	"github.com/runpodkit/runpod-go/pods"
)

// What a pod's container gets when it boots: the settings of the template
// it was created from, and its environment with references to account
// secrets resolved.

// applyPodTemplate fills a pod create from the template it names, as the
// create page says the platform does: the template's container settings
// where the body leaves them out, and its environment merged per variable
// with the body's winning. The template is a one-time source: the pod
// keeps no link to later edits. A template the fake does not have is
// left to the create as it was (the fake does not refuse it).
func (s *Server) applyPodTemplate(req *createPodJSON) {
	if req.TemplateID == nil {
		return
	}
	c, ok := s.templates.containerOf(*req.TemplateID)
	if !ok {
		return
	}
	if req.Image == nil && c.Image != "" {
		req.Image = &c.Image
	}
	if req.Args == nil && c.Args != "" {
		req.Args = &c.Args
	}
	if req.Disk == nil && c.Disk > 0 {
		req.Disk = &c.Disk
	}
	if req.Ports == nil {
		req.Ports = c.Ports
	}
	if req.Registry == nil && c.Registry != "" {
		req.Registry = &c.Registry
	}
	if len(c.Env) > 0 {
		env := maps.Clone(c.Env)
		maps.Copy(env, req.Env)
		req.Env = env
	}
}

// bootLocked gives pod p's container its environment as it boots (at
// at): each reference to an account secret replaced with the secret's
// value now. A reference to a secret the account does not have fails the
// boot: the pod goes to ERROR, with a system log line naming the secret,
// and bootLocked reports false. s.pods.mu is held (the secrets' lock is
// taken inside it).
func (s *Server) bootLocked(p *fakePod, at time.Time) bool {
	env, missing := s.resolveSecrets(p.Env)
	if missing != "" {
		p.bootEnv = nil
		p.set(pods.PodStatusError, at)
		p.log(at, pods.LogSourceSystem, "boot failed: the environment refers to secret "+missing+", which the account does not have")
		return false
	}
	p.bootEnv = env
	return true
}

// PodEnv returns the environment pod id's container got at its last boot
// (when it last reached RUNNING), with references to account secrets
// replaced by their values at that moment, and false when there is no
// such pod or it has not booted. A secret rotated since shows its new
// value only after the pod restarts.
func (s *Server) PodEnv(id string) (map[string]string, bool) {
	s.pods.mu.Lock()
	defer s.pods.mu.Unlock()
	p := s.pods.byID[id]
	if p == nil {
		return nil, false
	}
	s.advance(p)
	if p.bootEnv == nil {
		return nil, false
	}
	return maps.Clone(p.bootEnv), true
}

// WorkerBootEnv returns the environment a worker of endpoint endpointID
// gets when it boots now: the endpoint's (its template's, with the
// variables the endpoint sets itself in their place), with each
// reference to an account secret replaced by the secret's value at this
// moment, so a rotation reaches the workers that boot after it. It fails
// when there is no such endpoint, and when a reference names a secret the
// account does not have (the worker would fail to boot); the error names
// the secret, never a value. The fake's workers run in-process handlers,
// which see no environment of their own: this is where a test reads what
// a worker's container would get.
func (s *Server) WorkerBootEnv(endpointID string) (map[string]string, error) {
	s.graphql.mu.Lock()
	e := s.graphql.endpoints[endpointID]
	var c container
	if e != nil {
		c = s.containerLocked(e)
	}
	s.graphql.mu.Unlock()
	if e == nil {
		return nil, fmt.Errorf("runpodtest: no endpoint %s", endpointID)
	}
	env, missing := s.resolveSecrets(c.Env)
	if missing != "" {
		return nil, fmt.Errorf("runpodtest: a worker of endpoint %s cannot boot: its environment refers to secret %s, which the account does not have", endpointID, missing)
	}
	return env, nil
}
