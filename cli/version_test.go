package cli

import (
	"strings"
	"testing"

	"github.com/hplopt/hplopt/optimizer"
)

// TestVersionVerb: hplopt version names the tool's version and the search
// space's, and refuses operands.
func TestVersionVerb(t *testing.T) {
	st, out, errs := hplopt("version")
	if st != 0 || !strings.Contains(out, "hplopt "+optimizer.ToolVersion()+"\n") || !strings.Contains(out, "search space "+optimizer.SpaceVersion+"\n") {
		t.Errorf("hplopt version: status %d\n%s%s", st, out, errs)
	}
	if st, _, errs := hplopt("version", "extra"); st != 2 || !strings.Contains(errs, `unexpected argument "extra"`) {
		t.Errorf("hplopt version extra: status %d, %s", st, errs)
	}
}
