// Package difflib is a Go implementation of the alignment in Python's difflib module
// (CPython 3.11): SequenceMatcher (longest matching block recursion with the junk and
// autojunk rules), its opcodes, grouped opcodes and similarity ratios, and the Differ /
// ndiff line comparison including the character-level "fancy replace" that pairs similar
// lines. It exists so that faultline's PDB edit model and unified diffs produce the same
// line alignment as the reference implementations, which call difflib; a Myers diff gives
// different (equally minimal) answers, so it cannot be substituted.
//
// Terms, as in Python:
//
//   - a and b are the two sequences; matching blocks are triples (A, B, Size) with
//     a[A:A+Size] == b[B:B+Size], increasing in A and B, adjacent blocks merged, and a final
//     dummy (len(a), len(b), 0).
//   - The longest match of a[alo:ahi] and b[blo:bhi] is the longest block of equal elements
//     containing no junk; among the longest, the one starting earliest in a, then earliest in
//     b. It is then extended on both sides by equal non-junk elements that were excluded as
//     "popular", and then by equal junk elements.
//   - Junk: elements of b for which IsJunk returns true. Popular (autojunk): when b has at
//     least 200 elements, every non-junk element occurring more than len(b)/100+1 times in b.
//     Neither junk nor popular elements can start or anchor a match.
//   - Opcodes: tags 'e' (equal), 'r' (replace), 'd' (delete), 'i' (insert) — Python's
//     'equal', 'replace', 'delete', 'insert' — covering a and b from start to end.
//   - Ratio is 2*M/T with M matched elements and T = len(a)+len(b) (1 when both are empty);
//     QuickRatio and RealQuickRatio are Python's cheaper upper bounds.
//
// Ndiff and Differ.Compare classify every line as ' ' (in both), '-' (only in a) or '+'
// (only in b) in exactly the order Python's ndiff emits them. Replace blocks are refined as
// Python does: the most similar pair of lines (character ratio above 0.75, computed with
// space and tab as character junk and autojunk on lines of 200 or more characters) is
// emitted as '-' then '+', the ranges before and after it are refined recursively, and when
// no pair is similar enough the first identical pair (identical lines can sit inside a
// replace block when autojunk made them popular) is emitted as ' '.
//
// Differences from Python: elements are compared with Go's == (for strings: byte equality,
// which equals Python's code point equality for valid UTF-8); character-level comparison
// works on runes, so invalid UTF-8 bytes each become U+FFFD where Python would have
// failed to decode or used surrogate escapes. The '?' intraline hint lines of ndiff are
// produced only with Differ.Hints (Ndiff omits them), as DiffLine{'?', guide} without the
// "? " prefix and final "\n". GroupedOpCodes does not modify the cached opcodes (Python's
// get_grouped_opcodes edits them in place, which changes later calls). Results are
// slices, not generators. Newer CPython releases reworked the
// replace refinement for speed and may pair lines differently; this package follows 3.11,
// the interpreter its golden vectors were generated with.
//
// A SequenceMatcher caches its results and is not safe for concurrent use; distinct
// matchers are independent. Ndiff and Differ.Compare keep no state between calls and are
// safe for concurrent use.
package difflib
