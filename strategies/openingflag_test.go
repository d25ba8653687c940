package strategies

import (
	"strings"
	"testing"
)

// ParseOpening reads every key, String writes them back in its own order
// (the defaults left out), and each mistake is named with its key.
func TestParseOpening(t *testing.T) {
	o, err := ParseOpening(" isotropic, global-rounds=2,cover=2,omit-illegal=true,plateau=none,anchored=none,neighbours=3,evaluations=40,share=0.5,plateau-rounds=2,exploit=5,then=model")
	if err != nil {
		t.Fatal(err)
	}
	want := OpeningSettings{Evaluations: 40, Share: 0.5, Anchored: -1, Neighbours: 3, Plateau: -1, PlateauRounds: 2, GlobalRounds: 2, Exploit: 5, Cover: 2, OmitIllegal: true, Isotropic: true, Then: ThenModel}
	if o != want {
		t.Fatalf("parsed %+v, want %+v", o, want)
	}
	s := o.String()
	if s != "evaluations=40,share=0.5,anchored=none,neighbours=3,plateau=none,plateau-rounds=2,global-rounds=2,exploit=5,cover=2,omit-illegal=true,isotropic=true,then=model" {
		t.Errorf("String: %s", s)
	}
	if back, err := ParseOpening(s); err != nil || back != o {
		t.Errorf("String's text read back: %+v, %v", back, err)
	}
	// The defaults, given or not, are the zero value's text, "".
	for _, def := range []string{"", "evaluations=64,share=0.3333333333333333,anchored=1,neighbours=1,plateau=0.1,plateau-rounds=1,global-rounds=0,exploit=3,cover=0,omit-illegal=false,isotropic=false,then=genetic"} {
		o, err := ParseOpening(def)
		if err != nil || o.String() != "" || o.Canonical() != (OpeningSettings{}) {
			t.Errorf("%q: %+v (%q), %v", def, o, o.String(), err)
		}
	}
	for in, msg := range map[string]string{
		"global-round=2":   `opening setting "global-round": unknown (known: evaluations, share,`,
		"cover=2,cover=3":  `opening setting "cover" given twice`,
		"plateau=x":        `opening setting plateau: "x" is not a number above 0 and at most 10, or none`,
		"share=1.5":        `opening setting share: "1.5" is not a number above 0 and at most 1`,
		"evaluations=0":    `opening setting evaluations: "0" is not a whole number of at least 1`,
		"evaluations=none": `opening setting evaluations: "none" is not a whole number of at least 1`,
		"global-rounds=-1": `opening setting global-rounds: "-1" is not a whole number of at least 0`,
		"anchored=0":       `opening setting anchored: "0" is not a whole number of at least 1, or none`,
		"isotropic=maybe":  `opening setting isotropic: "maybe" is not true or false`,
		"then=simplex":     `opening setting then: "simplex" is none of genetic, model`,
		"plateau-rounds":   `opening setting plateau-rounds: "" is not a whole number of at least 1`,
		"exploit=0":        `opening setting exploit: "0" is not a whole number of at least 1, or none`,
	} {
		if _, err := ParseOpening(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %q", in, err, msg)
		}
	}
	if len(OpeningKeys()) != 12 {
		t.Errorf("%d keys described", len(OpeningKeys()))
	}
}

// Check refuses the opening's settings for another strategy, its default
// continuation excepted, and takes them for the opening.
func TestCheckOpening(t *testing.T) {
	o := OpeningSettings{GlobalRounds: 2}
	if err := (Options{Opening: o}).Check(Random); err == nil || err.Error() != "the opening's settings (global-rounds=2) are for strategy opening, not random" {
		t.Errorf("random with global-rounds: %v", err)
	}
	if err := (Options{Opening: o}).Check(Opening); err != nil {
		t.Errorf("opening with global-rounds: %v", err)
	}
	if err := (Options{Opening: OpeningSettings{Then: ThenGenetic}}).Check(Genetic); err != nil {
		t.Errorf("genetic with then=genetic: %v", err)
	}
}
