package helm

import (
	"regexp"
	"sort"
	"testing"

	"github.com/Masterminds/sprig/v3"
)

// volatileLooking are names of the kinds that read the clock, randomness, the network or the
// environment: a function of the pinned sprig with such a name must be classified.
var volatileLooking = regexp.MustCompile(`(?i)rand|gen|now|date|time|zone|ago|duration|epoch|uuid|shuffle|crypt|passw|cert|aes|host|dns|env|lookup`)

// helmOnly are the classified names that Helm's engine adds to sprig's (pkg/engine/funcs.go).
var helmOnly = map[string]bool{"lookup": true}

func TestEveryVolatileLookingSprigFunctionIsClassified(t *testing.T) {
	var missing []string
	for name := range sprig.TxtFuncMap() {
		_, volatile := volatileFuncs[name]
		_, pure := pureLookalikes[name]
		if volatileLooking.MatchString(name) && !volatile && !pure {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("sprig has functions neither in volatileFuncs nor in pureLookalikes: %q", missing)
	}
}

func TestSprigsNonHermeticFunctionsAreClassified(t *testing.T) {
	hermetic := sprig.HermeticTxtFuncMap()
	for name := range sprig.TxtFuncMap() {
		if _, ok := hermetic[name]; ok {
			continue
		}
		_, volatile := volatileFuncs[name]
		_, pure := pureLookalikes[name]
		if !volatile && !pure {
			t.Errorf("sprig calls %q not hermetic, and it is classified neither volatile nor pure", name)
		}
	}
}

func TestClassifiedFunctionsExist(t *testing.T) {
	funcs := sprig.TxtFuncMap()
	for _, set := range []map[string]string{volatileFuncs, pureLookalikes} {
		for name := range set {
			if _, ok := funcs[name]; !ok && !helmOnly[name] {
				t.Errorf("%q is classified but is no function of the pinned sprig or Helm", name)
			}
		}
	}
	for name := range volatileFuncs {
		if _, ok := pureLookalikes[name]; ok {
			t.Errorf("%q is classified both volatile and pure", name)
		}
	}
}
