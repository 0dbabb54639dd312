package artifact

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

// EnvironmentFromInstance reads the Level 2 environment back from an instance that Build
// wrote (instance.json or a line of instances.jsonl): env_patch, test_patch and patch
// applied to an empty tree give Start, Tests and Solution; FAIL_TO_PASS, the members
// test_file and solution_packages the rest. Imports, From and To are not stored and
// stay empty. An instance that is not Level 2 is an error wrapping ErrBadSpec.
func EnvironmentFromInstance(inst task.SWEInstance) (*Environment, error) {
	if !strings.HasSuffix(inst.InstanceID, ".lv2") {
		return nil, fmt.Errorf("%w: instance %s is not a Level 2 instance", ErrBadSpec, inst.InstanceID)
	}
	var envPatch, testFile string
	for _, m := range []struct {
		key string
		dst *string
	}{{"env_patch", &envPatch}, {"test_file", &testFile}} {
		raw, ok := inst.Extra[m.key]
		if !ok {
			return nil, fmt.Errorf("%w: instance %s has no %s", ErrBadSpec, inst.InstanceID, m.key)
		}
		if err := json.Unmarshal(raw, m.dst); err != nil {
			return nil, fmt.Errorf("%w: instance %s: %s: %w", ErrBadSpec, inst.InstanceID, m.key, err)
		}
	}
	env := &Environment{TestFile: testFile, FailToPass: slices.Clone([]string(inst.FailToPass))}
	if raw, ok := inst.Extra["solution_packages"]; ok {
		if err := json.Unmarshal(raw, &env.Packages); err != nil {
			return nil, fmt.Errorf("%w: instance %s: solution_packages: %w", ErrBadSpec, inst.InstanceID, err)
		}
	}
	for _, p := range []struct {
		name, text string
		dst        *task.Overlay
	}{{"env_patch", envPatch, &env.Start}, {"test_patch", inst.TestPatch, &env.Tests}, {"patch", inst.Patch, &env.Solution}} {
		o := task.Overlay{}
		if strings.TrimSpace(p.text) != "" {
			patch, err := task.ParsePatch([]byte(p.text))
			if err != nil {
				return nil, fmt.Errorf("%w: instance %s: %s: %w", ErrBadSpec, inst.InstanceID, p.name, err)
			}
			empty := func(string) ([]byte, error) { return nil, fs.ErrNotExist }
			if o, err = patch.Apply(empty); err != nil {
				return nil, fmt.Errorf("%w: instance %s: %s does not create files in an empty tree: %w", ErrBadSpec, inst.InstanceID, p.name, err)
			}
		}
		*p.dst = o
	}
	if strings.HasSuffix(testFile, "_test.go") {
		env.Kind = task.GoTest
		env.Select = task.Selection{IDs: slices.Clone(env.FailToPass)}
	} else {
		env.Kind = task.Pytest
		env.Select = task.Selection{Files: []string{testFile}}
	}
	return env, env.check()
}
