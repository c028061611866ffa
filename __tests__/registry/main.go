// Command test-registry serves an OCI registry (go-containerregistry's pkg/registry, in
// memory) on 127.0.0.1 for the chart download tests, optionally behind basic auth or the
// distribution bearer-token flow (a token endpoint in this program). It prints its address
// (host:port) as the first line of stdout and serves until killed.
//
//	test-registry [-auth none|basic|bearer] [-user U -password P]
//
// The password comes from the TEST_REGISTRY_PASSWORD environment variable when -password is
// not given, so it need not appear on a command line.
package main

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/google/go-containerregistry/pkg/registry"
)

type gate struct {
	mode, user, password string
	next                 http.Handler

	mu     sync.Mutex
	tokens map[string][]string // token -> granted scopes
	addr   string
}

func (g *gate) validBasic(r *http.Request) bool {
	u, p, ok := r.BasicAuth()
	return ok && subtle.ConstantTimeCompare([]byte(u), []byte(g.user)) == 1 &&
		subtle.ConstantTimeCompare([]byte(p), []byte(g.password)) == 1
}

// token issues a bearer token for the requested scopes to a client with valid credentials.
func (g *gate) token(w http.ResponseWriter, r *http.Request) {
	if !g.validBasic(r) {
		http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"invalid credentials"}]}`, http.StatusUnauthorized)
		return
	}
	buf := make([]byte, 16)
	_, _ = rand.Read(buf)
	tok := hex.EncodeToString(buf)
	g.mu.Lock()
	g.tokens[tok] = r.URL.Query()["scope"]
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"token": tok})
}

// repoAndAction: the repository a /v2/<name>/{manifests,blobs,tags}/ request addresses and
// the action it needs; name "" for /v2/ itself.
func repoAndAction(r *http.Request) (string, string) {
	path := strings.TrimPrefix(r.URL.Path, "/v2/")
	for _, sep := range []string{"/manifests/", "/blobs/", "/tags/"} {
		if i := strings.LastIndex(path, sep); i >= 0 {
			action := "push"
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				action = "pull"
			}
			return path[:i], action
		}
	}
	return "", ""
}

func (g *gate) allowedBearer(r *http.Request, repo, action string) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	g.mu.Lock()
	scopes, ok := g.tokens[tok]
	g.mu.Unlock()
	if !ok {
		return false
	}
	if repo == "" {
		return true
	}
	for _, s := range scopes {
		for _, one := range strings.Split(s, " ") {
			parts := strings.Split(one, ":")
			if len(parts) == 3 && parts[0] == "repository" && parts[1] == repo {
				for _, a := range strings.Split(parts[2], ",") {
					if a == action || a == "*" {
						return true
					}
				}
			}
		}
	}
	return false
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/token" && g.mode == "bearer" {
		g.token(w, r)
		return
	}
	switch g.mode {
	case "basic":
		if !g.validBasic(r) {
			w.Header().Set("WWW-Authenticate", `Basic realm="test-registry"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
			return
		}
	case "bearer":
		repo, action := repoAndAction(r)
		if !g.allowedBearer(r, repo, action) {
			challenge := fmt.Sprintf(`Bearer realm="http://%s/token",service="test-registry"`, g.addr)
			if repo != "" {
				challenge += fmt.Sprintf(`,scope="repository:%s:%s"`, repo, action)
			}
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

func main() {
	mode := flag.String("auth", "none", "none, basic or bearer")
	user := flag.String("user", "", "user name for basic and bearer")
	password := flag.String("password", "", "password (default: $TEST_REGISTRY_PASSWORD)")
	flag.Parse()
	if *password == "" {
		*password = os.Getenv("TEST_REGISTRY_PASSWORD")
	}
	if *mode != "none" && *mode != "basic" && *mode != "bearer" {
		log.Fatalf("unknown -auth %q", *mode)
	}
	if *mode != "none" && (*user == "" || *password == "") {
		log.Fatalf("-auth %s needs -user and a password", *mode)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	g := &gate{
		mode: *mode, user: *user, password: *password,
		next:   registry.New(registry.Logger(log.New(os.Stderr, "", log.LstdFlags))),
		tokens: map[string][]string{},
		addr:   ln.Addr().String(),
	}
	fmt.Println(ln.Addr().String())
	log.Fatal(http.Serve(ln, g))
}
