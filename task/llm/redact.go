package llm

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"os"
	"sort"
	"strings"
)

// Redaction. Text that reaches a model — test output above all, which code under test
// writes — may carry a secret of the process that runs faultline: the model's API key, a
// token in the environment. A Redactor replaces anything that looks like one of its
// secrets before the text leaves the process: the secret itself, its base64 (standard and
// URL alphabets, padded or not), hex and URL-escaped forms, and any fragment of at least
// MinFragment bytes of one of these (a truncated print, a repr cut by pytest). OpenAI.Chat
// passes every message through one (see OpenAI.Redactor).

// Redacted replaces a secret in redacted text.
const Redacted = "[REDACTED]"

// MinSecret is the shortest value treated as a secret: shorter values ("1", "true", a
// port) would redact ordinary words and numbers.
const MinSecret = 8

// MinFragment is the shortest fragment of a secret that is redacted on its own. A secret
// shorter than that is redacted only whole.
const MinFragment = 12

// secretWords are the parts of an environment variable's name that mark its value as a
// secret (matched case-insensitively anywhere in the name).
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "PRIVATE", "SESSION", "COOKIE", "SIGNATURE"}

// SecretsFromEnv returns the values in environ ("NAME=value" entries, as os.Environ gives
// them) whose names look like a secret's (they contain KEY, TOKEN, SECRET, PASSWORD,
// PASSWD, CREDENTIAL, AUTH, PRIVATE, SESSION, COOKIE or SIGNATURE, in any case) and that
// are at least MinSecret bytes long, sorted and without duplicates.
func SecretsFromEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || len(value) < MinSecret {
			continue
		}
		up := strings.ToUpper(name)
		for _, w := range secretWords {
			if strings.Contains(up, w) {
				out = append(out, value)
				break
			}
		}
	}
	sort.Strings(out)
	return compact(out)
}

// Redactor removes secrets from text. The zero value redacts nothing; it is safe for
// concurrent use.
type Redactor struct {
	// forms are the secrets and their encodings, longest first.
	forms []string
	// grams maps each MinFragment-byte substring of a form of at least MinFragment bytes
	// to the forms and offsets where it starts.
	grams map[string][]gramAt
}

type gramAt struct{ form, off int }

// NewRedactor returns a Redactor for secrets; values shorter than MinSecret are ignored.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{grams: map[string][]gramAt{}}
	var forms []string
	for _, s := range secrets {
		if len(s) < MinSecret {
			continue
		}
		b := []byte(s)
		forms = append(forms, s,
			base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
			base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b),
			hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b)),
			url.QueryEscape(s), url.PathEscape(s))
	}
	sort.Slice(forms, func(i, j int) bool {
		if len(forms[i]) != len(forms[j]) {
			return len(forms[i]) > len(forms[j])
		}
		return forms[i] < forms[j]
	})
	r.forms = compact(forms)
	for fi, f := range r.forms {
		for off := 0; off+MinFragment <= len(f); off++ {
			g := f[off : off+MinFragment]
			r.grams[g] = append(r.grams[g], gramAt{fi, off})
		}
	}
	return r
}

// EnvRedactor returns a Redactor for the secret-looking values of the process's
// environment (SecretsFromEnv(os.Environ())) and the extra secrets given (an API key held
// elsewhere). It reads the environment when called.
func EnvRedactor(extra ...string) *Redactor {
	return NewRedactor(append(SecretsFromEnv(os.Environ()), extra...)...)
}

// Secrets reports whether the Redactor has anything to redact.
func (r *Redactor) Secrets() bool { return r != nil && len(r.forms) > 0 }

// Redact returns s with every occurrence of a secret, one of its encodings, or a fragment
// of at least MinFragment bytes of either replaced by Redacted.
func (r *Redactor) Redact(s string) string {
	if !r.Secrets() || s == "" {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		n := r.matchAt(s, i)
		if n == 0 {
			i++
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(Redacted)
		i += n
		last = i
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// matchAt returns the length of the longest secret form, or fragment of one, that starts
// at s[i:] (0 when none does).
func (r *Redactor) matchAt(s string, i int) int {
	best := 0
	for _, f := range r.forms {
		if len(f) < MinFragment && strings.HasPrefix(s[i:], f) {
			best = max(best, len(f))
		}
	}
	if i+MinFragment > len(s) {
		return best
	}
	for _, at := range r.grams[s[i:i+MinFragment]] {
		f := r.forms[at.form]
		n := MinFragment
		for at.off+n < len(f) && i+n < len(s) && f[at.off+n] == s[i+n] {
			n++
		}
		best = max(best, n)
	}
	return best
}

func compact(s []string) []string {
	var out []string
	for _, v := range s {
		if v != "" && (len(out) == 0 || v != out[len(out)-1]) {
			out = append(out, v)
		}
	}
	return out
}
