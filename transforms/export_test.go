package transforms

import "fmt"

// ApplyChecked is Apply for tests: it runs Check after every pass on the
// kernel as the passes have made it so far (before the assembly pass, with
// the compute section that the parts would assemble into), and it does not
// recover from a panic, so that a test shows where a pass failed.
func ApplyChecked(prob *Problem, p Params) (*Variant, error) {
	r := &run{passes: Pipeline, after: checkAfter}
	return r.apply(prob, p)
}

// ApplyWithout is ApplyChecked with the pass called name left out of the
// pipeline; no pass left may require it.
func ApplyWithout(prob *Problem, p Params, name string) (*Variant, error) {
	var passes []*Pass
	for _, pass := range Pipeline {
		if pass.Name != name {
			passes = append(passes, pass)
		}
	}
	if len(passes) == len(Pipeline) {
		return nil, fmt.Errorf("no pass %s in the pipeline", name)
	}
	if err := validatePipeline(passes); err != nil {
		return nil, fmt.Errorf("without %s: %v", name, err)
	}
	r := &run{passes: passes, after: checkAfter}
	return r.apply(prob, p)
}

// checkAfter checks the invariants of the kernel after pass.
func checkAfter(pass *Pass, s *state) error {
	if !s.assembled {
		body := s.comp.Body
		s.comp.Body = s.assemble()
		defer func() { s.comp.Body = body }()
	}
	if err := Check(s.k, s.prob.LocalMem); err != nil {
		return fmt.Errorf("after pass %s: %w", pass.Name, err)
	}
	return nil
}
