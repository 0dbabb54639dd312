package llm

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestSecretsFromEnv(t *testing.T) {
	env := []string{
		"PATH=/usr/local/bin:/usr/bin", "HOME=/root", "OPENAI_API_KEY=sk-proj-abcdefghijklmnop",
		"GITHUB_TOKEN=ghp_0123456789abcdefghij", "db_password=correct horse", "SHORT_KEY=abc",
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG", "EMPTY_TOKEN=", "FAULTLINE_LLM_API_KEY=sk-proj-abcdefghijklmnop",
		"NOEQUALS",
	}
	got := SecretsFromEnv(env)
	want := []string{"correct horse", "ghp_0123456789abcdefghij", "sk-proj-abcdefghijklmnop", "wJalrXUtnFEMI/K7MDENG"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("SecretsFromEnv = %q, want %q", got, want)
	}
}

func TestRedact(t *testing.T) {
	const key = "sk-fake-0123456789abcdefXYZ"
	r := NewRedactor(key, "short")
	cases := []struct{ name, in, want string }{
		{"plain", "key is " + key + ".", "key is " + Redacted + "."},
		{"twice", key + key, Redacted + Redacted},
		{"base64", "b64=" + base64.StdEncoding.EncodeToString([]byte(key)), "b64=" + Redacted},
		{"base64url raw", base64.RawURLEncoding.EncodeToString([]byte(key)), Redacted},
		{"hex", hex.EncodeToString([]byte(key)) + "!", Redacted + "!"},
		{"url escaped", "q=" + url.QueryEscape(key+"/+"), "q=" + Redacted + "%2F%2B"},
		{"truncated print", "AssertionError: 'sk-fake-0123456789ab' != ''", "AssertionError: '" + Redacted + "' != ''"},
		{"repr cut in the middle", "'sk-f[10 chars]456789abcdefXYZ'", "'sk-f[10 chars]" + Redacted + "'"},
		{"fragment too short", "sk-fake-012 and 0123456789a", "sk-fake-012 and 0123456789a"},
		{"fragment of MinFragment bytes", "sk-fake-0123", Redacted},
		{"short secrets are not secrets", "a short word", "a short word"},
		{"nothing", "no secret here", "no secret here"},
		{"empty", "", ""},
	}
	for _, c := range cases {
		if got := r.Redact(c.in); got != c.want {
			t.Errorf("%s: Redact(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
	if (&Redactor{}).Redact(key) != key || NewRedactor().Secrets() {
		t.Error("an empty Redactor changed text")
	}
}

// TestChatRedacts: with a fake key in the environment, a tool message (test output that
// printed the key) reaches the endpoint redacted; the request still authenticates.
func TestChatRedacts(t *testing.T) {
	const key = "sk-fake-test-key-0123456789abcdef"
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("SOME_SERVICE_TOKEN", "tok-9876543210zyxwvut")
	s := &server{answers: []func(http.ResponseWriter){jsonAnswer(200, toolCallAnswer)}}
	c, _ := newClient(t, s)
	c.APIKey = key
	msgs := []Message{
		{Role: "user", Content: "fix it"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "c0", Name: "submit_attempt", Arguments: `{"code":"print('` + key[:20] + `')"}`}}},
		{Role: "tool", ToolCallID: "c0", Content: "FAILED test_env - AssertionError: '" + key + "' != '' and tok-9876543210zyxwvut"},
	}
	if _, err := c.Chat(context.Background(), Request{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(s.requests[0])
	for _, secret := range []string{key, key[:20], "tok-9876543210zyxwvut"} {
		if strings.Contains(string(body), secret) {
			t.Errorf("the request carries %q: %s", secret, body)
		}
	}
	if !strings.Contains(string(body), Redacted) {
		t.Errorf("nothing was redacted: %s", body)
	}
	if s.auth[0] != "Bearer "+key {
		t.Errorf("Authorization = %q", s.auth[0])
	}
	if !strings.Contains(msgs[2].Content, key) || !strings.Contains(msgs[1].ToolCalls[0].Arguments, key[:20]) {
		t.Error("Chat changed the caller's messages")
	}
}
