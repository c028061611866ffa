package helm

// volatileFuncs are the template functions of the pinned Helm engine (helm.sh/helm/v3
// pkg/engine funcMap: sprig v3.3.0's TxtFuncMap plus Helm's own) whose result is not a function
// of the render's inputs (docs/renderers.md#volatile-templates). Read from sprig's functions.go,
// date.go, crypto.go, strings.go and network.go and Helm's engine.go and funcs.go at the versions
// in go.mod. volatile_funcs_test.go fails when sprig gains a function with a name of this kind,
// or one it calls not hermetic, that is classified neither here nor in pureLookalikes; Helm's
// own additions (toYaml and the like, include, tpl, required, lookup) are in an unexported map,
// read by hand: none reads the clock or randomness.
var volatileFuncs = map[string]string{
	// The clock. dateInZone (under all its names) formats time.Now() when its argument is not
	// a time or a number of seconds, so a missing value reads the clock too; and date, htmlDate,
	// toDate and mustToDate use the process's local time zone (TZ). Sprig's own
	// nonhermeticFunctions list the date and dateModify families; dateModify only adds to a
	// time.Time, which only these functions make, but it stays listed as sprig lists it.
	"now":              "reads the clock",
	"ago":              "reads the clock (time.Since)",
	"durationRound":    "reads the clock when given a time (time.Since)",
	"date":             "local time zone; the clock when not given a time",
	"dateInZone":       "the clock when not given a time",
	"date_in_zone":     "the clock when not given a time",
	"htmlDate":         "local time zone; the clock when not given a time",
	"htmlDateInZone":   "the clock when not given a time",
	"toDate":           "parses in the local time zone",
	"mustToDate":       "parses in the local time zone",
	"dateModify":       "listed by sprig as not hermetic",
	"date_modify":      "listed by sprig as not hermetic",
	"mustDateModify":   "dateModify's twin",
	"must_date_modify": "dateModify's twin",
	// Randomness.
	"randAlphaNum":  "random",
	"randAlpha":     "random",
	"randAscii":     "random",
	"randNumeric":   "random",
	"randBytes":     "random",
	"randInt":       "random (math/rand)",
	"shuffle":       "random (math/rand)",
	"uuidv4":        "random",
	"bcrypt":        "random salt",
	"htpasswd":      "bcrypt: random salt",
	"encryptAES":    "random IV",
	"genPrivateKey": "random key",
	// Go's map order, which differs from run to run: a list of a map's keys or values, unless
	// sorted at once (`keys $m | sortAlpha`, `sortAlpha (keys $m)`: see sortedAtOnce).
	"keys":   "Go's map order, unless sorted at once",
	"values": "Go's map order, unless sorted at once",
	// Keys, serial numbers and validity from the clock: every certificate function.
	"genCA":                    "random key and serial; validity from the clock",
	"genCAWithKey":             "random serial; validity from the clock",
	"genSelfSignedCert":        "random key and serial; validity from the clock",
	"genSelfSignedCertWithKey": "random serial; validity from the clock",
	"genSignedCert":            "random key and serial; validity from the clock",
	"genSignedCertWithKey":     "random serial; validity from the clock",
}

// pureLookalikes are functions whose names look like the volatile ones, or that sprig lists as
// not hermetic, but whose result in this render is a function of its inputs, with the reason.
var pureLookalikes = map[string]string{
	// Helm's engine, as Render runs it: EnableDNS is off, so getHostByName always returns "".
	"getHostByName": `Helm returns "" without EnableDNS, which Render leaves off`,
	// Helm's funcMap deletes them: a template that calls them fails to parse, on every run.
	"env":       "deleted by Helm's funcMap: the render fails",
	"expandenv": "deleted by Helm's funcMap: the render fails",
	// Render gives the engine no cluster client: lookup is Helm's placeholder, an empty map.
	"lookup": "no cluster client: always an empty map",
	// Deterministic functions of their arguments.
	"derivePassword":  "deterministic (Master Password algorithm)",
	"decryptAES":      "deterministic",
	"buildCustomCert": "parses the given certificate and key",
	"unixEpoch":       "formats the given time",
	"duration":        "formats the given seconds",
}
