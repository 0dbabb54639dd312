package task

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// TestPackagesKey is the SWE-bench instance member that BareGoTestIDs writes: it maps each
// bare Go test name to the import paths of the packages that declare it, sorted.
const TestPackagesKey = "test_packages"

// BareGoTestIDs rewrites the instance's Go test ids (import/path.TestName/sub) as the names
// SWE-bench's Go log parser reports (TestName/sub) and records each name's packages under
// Extra[TestPackagesKey], so FullGoTestIDs can restore them. Ids that are not Go test ids
// are kept as they are. A name in both lists (tests of two packages sharing a name) stays
// in FAIL_TO_PASS only: a log line cannot tell the packages apart, and a failing one fails
// the name.
func (s *SWEInstance) BareGoTestIDs() error {
	pkgs := map[string][]string{}
	conv := func(ids TestList, skip map[string]bool) TestList {
		var out TestList
		seen := map[string]bool{}
		for _, id := range ids {
			pkg, name, ok := SplitGoTestID(id)
			if !ok {
				name = id
			}
			if skip[name] {
				continue
			}
			if pkg != "" && !slices.Contains(pkgs[name], pkg) {
				pkgs[name] = append(pkgs[name], pkg)
				sort.Strings(pkgs[name])
			}
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
		return out
	}
	f2p := conv(s.FailToPass, nil)
	inF2P := map[string]bool{}
	for _, n := range f2p {
		inF2P[n] = true
	}
	p2p := conv(s.PassToPass, inF2P)
	raw, err := json.Marshal(pkgs) // encoding/json sorts map keys
	if err != nil {
		return err
	}
	s.FailToPass, s.PassToPass = f2p, p2p
	if s.Extra == nil {
		s.Extra = map[string]json.RawMessage{}
	}
	s.Extra[TestPackagesKey] = raw
	return nil
}

// FullGoTestIDs undoes BareGoTestIDs: each bare name listed under Extra[TestPackagesKey]
// becomes import/path.TestName/sub for every package that declares it (a name two
// packages share comes back for both). An instance without that member is left as it is;
// a name the member does not list is an error, since its package is unknown.
func (s *SWEInstance) FullGoTestIDs() error {
	raw, ok := s.Extra[TestPackagesKey]
	if !ok {
		return nil
	}
	var pkgs map[string][]string
	if err := json.Unmarshal(raw, &pkgs); err != nil {
		return fmt.Errorf("instance %s: %s: %w", s.InstanceID, TestPackagesKey, err)
	}
	conv := func(list string, ids TestList) (TestList, error) {
		var out TestList
		for _, name := range ids {
			ps, ok := pkgs[name]
			if !ok || len(ps) == 0 {
				top, _, _ := strings.Cut(name, "/")
				if _, _, full := SplitGoTestID(name); full || !IsGoTestFunc(top) {
					out = append(out, name)
					continue
				}
				return nil, fmt.Errorf("instance %s: %s: %q has no package in %s", s.InstanceID, list, name, TestPackagesKey)
			}
			for _, p := range ps {
				out = append(out, p+"."+name)
			}
		}
		return out, nil
	}
	f2p, err := conv("FAIL_TO_PASS", s.FailToPass)
	if err != nil {
		return err
	}
	p2p, err := conv("PASS_TO_PASS", s.PassToPass)
	if err != nil {
		return err
	}
	s.FailToPass, s.PassToPass = f2p, p2p
	delete(s.Extra, TestPackagesKey)
	return nil
}
