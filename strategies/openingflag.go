package strategies

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// openingKey is one setting of OpeningSettings as ParseOpening reads it
// and String writes it.
type openingKey struct {
	name string
	doc  string
	// set parses v (the text after "=", "" when the key was given alone)
	// into o.
	set func(o *OpeningSettings, v string) error
	// get writes o's value, "" when it is the zero value (the default).
	get func(o OpeningSettings) string
}

// parseWhole parses a whole number of at least lo; "none" is -1 where none
// says so.
func parseWhole(v string, lo int, none bool) (int, error) {
	if none && v == "none" {
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo {
		want := fmt.Sprintf("a whole number of at least %d", lo)
		if none {
			want += ", or none"
		}
		return 0, fmt.Errorf("%q is not %s", v, want)
	}
	return n, nil
}

// parseShare parses a share in (0, hi]; "none" is -1.
func parseShare(v string, hi float64) (float64, error) {
	if v == "none" {
		return -1, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || f <= 0 || f > hi {
		return 0, fmt.Errorf("%q is not a number above 0 and at most %g, or none", v, hi)
	}
	return f, nil
}

// parseBool parses a boolean: given alone, or true/false (1/0).
func parseBool(v string) (bool, error) {
	if v == "" {
		return true, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%q is not true or false", v)
	}
	return b, nil
}

// wholeKey is a key of a whole number of at least lo (with none, "none"
// is -1), at *field(o).
func wholeKey(name, doc string, lo int, none bool, field func(*OpeningSettings) *int) openingKey {
	return openingKey{name, doc,
		func(o *OpeningSettings, v string) (err error) { *field(o), err = parseWhole(v, lo, none); return },
		func(o OpeningSettings) string {
			switch n := *field(&o); {
			case n == 0:
				return ""
			case n < 0:
				return "none"
			default:
				return strconv.Itoa(n)
			}
		}}
}

// shareKey is a key of a share in (0, hi], or "none" (-1), at *field(o).
func shareKey(name, doc string, hi float64, field func(*OpeningSettings) *float64) openingKey {
	return openingKey{name, doc,
		func(o *OpeningSettings, v string) (err error) { *field(o), err = parseShare(v, hi); return },
		func(o OpeningSettings) string {
			switch f := *field(&o); {
			case f == 0:
				return ""
			case f < 0:
				return "none"
			default:
				return strconv.FormatFloat(f, 'g', -1, 64)
			}
		}}
}

// boolKey is a boolean key at *field(o).
func boolKey(name, doc string, field func(*OpeningSettings) *bool) openingKey {
	return openingKey{name, doc,
		func(o *OpeningSettings, v string) (err error) { *field(o), err = parseBool(v); return },
		func(o OpeningSettings) string {
			if *field(&o) {
				return "true"
			}
			return ""
		}}
}

// openingKeys are ParseOpening's keys, in String's order.
var openingKeys = []openingKey{
	wholeKey("evaluations", fmt.Sprintf("points hybrid proposes before the genetic algorithm takes over (default %d)", OpeningEvaluations), 1, false,
		func(o *OpeningSettings) *int { return &o.Evaluations }),
	shareKey("share", fmt.Sprintf("the largest share of the evaluation budget estimated from the time budget (-t; not -e) that hybrid proposes (default %.3g; none: no bound)", OpeningShare), 1,
		func(o *OpeningSettings) *float64 { return &o.Share }),
	wholeKey("anchored", fmt.Sprintf("anchored moves of each start point measured first (default %d; none)", OpeningAnchored), 1, true,
		func(o *OpeningSettings) *int { return &o.Anchored }),
	wholeKey("neighbours", fmt.Sprintf("neighbours of the start points measured before the first model (default %d; none: hybrid's random points instead)", OpeningNeighbours), 1, true,
		func(o *OpeningSettings) *int { return &o.Neighbours }),
	shareKey("plateau", fmt.Sprintf("the share of the best time within which the first points make a plateau (default %g; none)", OpeningPlateau), 10,
		func(o *OpeningSettings) *float64 { return &o.Plateau }),
	wholeKey("plateau-rounds", fmt.Sprintf("the first rounds a plateau widens (default %d)", OpeningPlateauRounds), 1, false,
		func(o *OpeningSettings) *int { return &o.PlateauRounds }),
	wholeKey("global-rounds", "the first rounds that choose a point anywhere, every point of a later round local (default 0: every round; 2: a candidate)", 0, false,
		func(o *OpeningSettings) *int { return &o.GlobalRounds }),
	wholeKey("exploit", fmt.Sprintf("the first round whose point anywhere is the model's best guess while it predicts a gain (default %d; none: expected improvement in every round)", OpeningExploit), 1, true,
		func(o *OpeningSettings) *int { return &o.Exploit }),
	wholeKey("cover", "the first local point of each round gives a parameter of at most this many values a value never measured (default 0: none; 2: flags, a candidate)", 0, false,
		func(o *OpeningSettings) *int { return &o.Cover }),
	boolKey("omit-illegal", "leave the points the space cannot hold out of the model (default false: the slowest time; a candidate)",
		func(o *OpeningSettings) *bool { return &o.OmitIllegal }),
	boolKey("isotropic", "one length scale for all parameters (default false: one per parameter)",
		func(o *OpeningSettings) *bool { return &o.Isotropic }),
	{"then", fmt.Sprintf("the search that takes over: %s (the default) or %s", ThenGenetic, ThenModel),
		func(o *OpeningSettings, v string) error {
			if v != ThenGenetic && v != ThenModel {
				return fmt.Errorf("%q is none of %s, %s", v, ThenGenetic, ThenModel)
			}
			o.Then = v
			return nil
		},
		func(o OpeningSettings) string { return o.Then }},
}

// OpeningKeys describes ParseOpening's keys, a line each: "key: what it
// sets (its default)".
func OpeningKeys() []string {
	out := make([]string, len(openingKeys))
	for i, k := range openingKeys {
		out[i] = k.name + ": " + k.doc
	}
	return out
}

// ParseOpening reads the opening strategy's settings from a list of
// key=value separated by commas ("global-rounds=2,omit-illegal"; a
// boolean key given alone is true; "none" turns off a setting whose
// default is on): the keys are OpeningKeys', each at most once, the
// settings not named keeping their defaults. The empty string is the
// defaults. String writes the same syntax back.
func ParseOpening(s string) (OpeningSettings, error) {
	var o OpeningSettings
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, v, _ := strings.Cut(item, "=")
		name, v = strings.TrimSpace(name), strings.TrimSpace(v)
		i := slices.IndexFunc(openingKeys, func(k openingKey) bool { return k.name == name })
		if i < 0 {
			names := make([]string, len(openingKeys))
			for j, k := range openingKeys {
				names[j] = k.name
			}
			return OpeningSettings{}, fmt.Errorf("opening setting %q: unknown (known: %s)", name, strings.Join(names, ", "))
		}
		if seen[name] {
			return OpeningSettings{}, fmt.Errorf("opening setting %q given twice", name)
		}
		seen[name] = true
		if err := openingKeys[i].set(&o, v); err != nil {
			return OpeningSettings{}, fmt.Errorf("opening setting %s: %w", name, err)
		}
	}
	return o, nil
}

// Canonical returns o with each setting that gives its default (the
// default's value given explicitly: plateau=0.1) set to the zero value,
// so that settings that search alike compare equal.
func (o OpeningSettings) Canonical() OpeningSettings {
	zero := func(p *int, def int) {
		if *p == def {
			*p = 0
		}
	}
	zero(&o.Evaluations, OpeningEvaluations)
	zero(&o.Anchored, OpeningAnchored)
	zero(&o.Neighbours, OpeningNeighbours)
	zero(&o.PlateauRounds, OpeningPlateauRounds)
	zero(&o.Exploit, OpeningExploit)
	if o.Share == OpeningShare {
		o.Share = 0
	}
	if o.Plateau == OpeningPlateau {
		o.Plateau = 0
	}
	if o.Then == ThenGenetic {
		o.Then = ""
	}
	return o
}

// String writes the settings that differ from the defaults (Canonical)
// as ParseOpening reads them, in a fixed order; "" for the defaults.
func (o OpeningSettings) String() string {
	o = o.Canonical()
	var parts []string
	for _, k := range openingKeys {
		if v := k.get(o); v != "" {
			parts = append(parts, k.name+"="+v)
		}
	}
	return strings.Join(parts, ",")
}

// WithThen returns o with its continuation then, when given (a flag of
// its own, --then): an error when o names another.
func (o OpeningSettings) WithThen(then string) (OpeningSettings, error) {
	switch {
	case then == "":
	case o.Then == "" || o.Then == then:
		o.Then = then
	default:
		return o, fmt.Errorf("the opening's continuation is given twice, %s (--then) and %s (--opening then=)", then, o.Then)
	}
	return o, nil
}

// Settings returns the settings of opt that the strategy named name reads
// and that differ from its defaults, as its flag takes them: the
// opening's (OpeningSettings.String, its continuation included); "" for
// the defaults and for the other strategies.
func (opt Options) Settings(name string) string {
	if name != Opening {
		return ""
	}
	return opt.Opening.String()
}
