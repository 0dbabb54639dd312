package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/faultline-dev/faultline/task/llm"
)

// ErrBadAnswer is wrapped when a model's answer is not a JSON list of candidate ids.
var ErrBadAnswer = errors.New("extract: malformed classifier answer")

// LLMClassifier asks a chat model which candidates a test file tests, BatchSize candidates
// at a time. Each answer must be a JSON list of ids (it may be wrapped in prose or a code
// fence: the first '[' to the last ']' is read); ids that are not among the batch's
// candidates are dropped. A malformed answer is retried up to Retries times, then the
// error wraps ErrBadAnswer. It is safe for concurrent use (a Model must be).
type LLMClassifier struct {
	// Model answers the questions (required; llm.FromEnv configures an OpenAI-compatible
	// endpoint from the environment).
	Model llm.Model
	// BatchSize is the number of candidates per request (default 5).
	BatchSize int
	// Retries bounds the retries of a malformed answer (default 2; negative: none).
	Retries int
	// MaxSource caps the characters of test and candidate source quoted (default 4000 for
	// the test file, a tenth of that per candidate).
	MaxSource int
}

const classifySystem = `You label the code a unit-test file exercises. A "tested object" is a function, method or class whose behaviour the tests check directly. A "helper" is code the tests only use along the way (general utilities, setup, logging, fixtures). Answer with a JSON list of the ids of the tested objects among the candidates, and nothing else; answer [] when none is.`

// Classify implements Classifier.
func (c *LLMClassifier) Classify(ctx context.Context, req ClassifyRequest) ([]string, error) {
	if c.Model == nil {
		return nil, fmt.Errorf("extract: LLMClassifier.Model: %w", llm.ErrNotConfigured)
	}
	size := c.BatchSize
	if size <= 0 {
		size = 5
	}
	retries := c.Retries
	if retries == 0 {
		retries = 2
	}
	if retries < 0 {
		retries = 0
	}
	maxSrc := c.MaxSource
	if maxSrc <= 0 {
		maxSrc = 4000
	}
	var out []string
	for start := 0; start < len(req.Candidates); start += size {
		batch := req.Candidates[start:min(start+size, len(req.Candidates))]
		prompt := classifyPrompt(req, batch, maxSrc)
		var ids []string
		var err error
		for attempt := 0; attempt <= retries; attempt++ {
			var resp llm.Response
			resp, err = c.Model.Chat(ctx, llm.Request{Messages: []llm.Message{
				{Role: "system", Content: classifySystem},
				{Role: "user", Content: prompt},
			}})
			if err != nil {
				return nil, fmt.Errorf("extract: classify %s: %w", req.TestFile, err)
			}
			ids, err = parseIDList(resp.Message.Content, batch)
			if err == nil {
				break
			}
		}
		if err != nil {
			return nil, fmt.Errorf("extract: classify %s: %w", req.TestFile, err)
		}
		out = append(out, ids...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func classifyPrompt(req ClassifyRequest, batch []Candidate, maxSrc int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Test file %s:\n```\n%s\n```\n\nCandidates:\n", req.TestFile, clip(req.TestSource, maxSrc))
	for _, c := range batch {
		fmt.Fprintf(&b, "- id: %s (defined in %s, called %d level(s) below the tests", c.ID, c.File, c.Depth)
		if c.Imported {
			b.WriteString(", imported by the test file")
		}
		fmt.Fprintf(&b, ", used directly by %d of %d other test files)\n", c.UsedBy, req.OtherFiles)
		if c.Source != "" {
			fmt.Fprintf(&b, "```\n%s\n```\n", clip(c.Source, maxSrc/10))
		}
	}
	b.WriteString("\nAnswer with a JSON list of ids.")
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n…"
}

// parseIDList reads the JSON list in an answer and keeps the ids among batch.
func parseIDList(answer string, batch []Candidate) ([]string, error) {
	i, j := strings.IndexByte(answer, '['), strings.LastIndexByte(answer, ']')
	if i < 0 || j < i {
		return nil, fmt.Errorf("%w: no JSON list in %q", ErrBadAnswer, clip(answer, 200))
	}
	var ids []string
	if err := json.Unmarshal([]byte(answer[i:j+1]), &ids); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadAnswer, err)
	}
	valid := map[string]bool{}
	for _, c := range batch {
		valid[c.ID] = true
	}
	var out []string
	for _, id := range ids {
		if valid[strings.TrimSpace(id)] {
			out = append(out, strings.TrimSpace(id))
		}
	}
	return out, nil
}
