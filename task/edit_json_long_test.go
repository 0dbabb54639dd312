package task_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

// TestEditsErrorsClipValues decodes gt_diff objects whose bad edit type or key is 50 MB long:
// the error names the problem and a short excerpt, never the whole value (issue 13 item 8:
// errors echoed a 50 MB field back).
func TestEditsErrorsClipValues(t *testing.T) {
	big := strings.Repeat("Z", 50<<20)
	for name, doc := range map[string]string{
		"type":       `{"1": {"type": "` + big + `"}}`,
		"key":        `{"` + big + `": {"type": "Add"}}`,
		"key, value": `{"1` + big + `": 3}`,
	} {
		var e task.Edits
		err := json.Unmarshal([]byte(doc), &e)
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		if msg := err.Error(); len(msg) > 300 || !strings.Contains(msg, "ZZZZ") {
			t.Errorf("%s: %d bytes: %.300s", name, len(msg), msg)
		}
	}
}
