//go:build calib

// Calibration tools, not tests: they assert nothing, so they are built only with -tags calib
// (CALIB_OUT=file go test -tags calib -run TestCalibDump ./search/; likewise CALIB_Q for
// TestCalibTop and CALIB_SPEC for TestCalibSpecWords).

package search

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestCalibDump writes, for calibrating the answer thresholds, the features of every
// tuning question's best unit (never the test half's) and whether the answer would be
// right if it were not declined: with CALIB_OUT=file, one tab-separated line a question
// (set, right|sect|wrong|off, whether it is answered, heaviest term held, coverage, own, section coverage, heading
// coverage, score, next section's score, unknown share, weight, terms, question).
func TestCalibDump(t *testing.T) {
	out := calibEnv(t, "CALIB_OUT")
	ix := shippedIndex(t)
	var b strings.Builder
	for _, set := range evalSets() {
		if heldOut[set] {
			continue // never calibrated on
		}
		for _, qq := range loadQA(t, set+".json") {
			var f string
			debugDecide = func(q question, cands []scored) {
				best := cands[0]
				second := 0.0
				for _, c := range cands[1:] {
					if c.u.sec != best.u.sec {
						second = c.score
						break
					}
				}
				heavy := q.terms[0]
				for _, t := range q.terms {
					if t.weight > heavy.weight {
						heavy = t
					}
				}
				hm := 0
				if heavy.match(best.u.terms) > 0 || heavy.match(best.u.ctx) > 0 {
					hm = 1
				}
				f = fmt.Sprintf("%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%d", hm, best.coverage, best.own, q.sectionCoverage(best.u.sec), q.headingCoverage(best.u.sec), best.score, second, q.unknownFull/q.fullTotal, q.total, len(q.terms))
			}
			answered, err := ix.Answer(context.Background(), qq.Question)
			if err != nil {
				t.Fatal(err)
			}
			debugNoDecline = true
			a, err := ix.Answer(context.Background(), qq.Question)
			debugNoDecline = false
			debugDecide = nil
			if err != nil {
				t.Fatal(err)
			}
			label := "off"
			if !qq.OffTopic {
				fact := regexp.MustCompile("(?i)" + qq.Fact)
				switch {
				case fact.MatchString(a.Text()) && cites(a, qq.Sections):
					label = "right"
				case cites(a, qq.Sections):
					label = "sect"
				default:
					label = "wrong"
				}
			}
			if f == "" {
				f = "unknown"
			}
			fmt.Fprintf(&b, "%s\t%s\t%v\t%s\t%s\n", set, label, answered.Answered, f, qq.Question)
		}
	}
	writeCalib(t, out, b.String())
}

// TestCalibTop prints, for the questions in CALIB_Q (separated by "|"), the best scored
// units with their scores and the answer: a tool for reading a tuning set's misses.
func TestCalibTop(t *testing.T) {
	qs := calibEnv(t, "CALIB_Q")
	// A held-out question read this way would be tuned on: refuse them.
	held := map[string]bool{}
	for set := range heldOut {
		for _, q := range loadQA(t, set+".json") {
			held[strings.ToLower(strings.TrimSpace(q.Question))] = true
		}
	}
	ix := shippedIndex(t)
	for _, text := range strings.Split(qs, "|") {
		if held[strings.ToLower(strings.TrimSpace(text))] {
			t.Fatalf("%q is a held-out question", text)
		}
		debugDecide = func(q question, cands []scored) {
			var ts []string
			for _, x := range q.terms {
				ts = append(ts, fmt.Sprintf("%s:%.2f", x.term, x.weight))
			}
			fmt.Printf("Q %s\n  terms %v number=%v code=%v howTo=%v list=%v status=%v\n", text, ts, q.number, q.code, q.howTo, q.list, q.status)
			for i, c := range cands[:min(calibTopN(), len(cands))] {
				s := c.u.text
				if len(s) > 110 {
					s = s[:110]
				}
				fmt.Printf("  %2d %.3f cov=%.2f own=%.2f %s | %s\n", i, c.score, c.coverage, c.own, strings.TrimPrefix(c.u.sec.passage.URL, "/docs/"), s)
			}
		}
		if os.Getenv("CALIB_P") != "" {
			// The retrieved passages, as Answer ranks them before scoring their units.
			ps, _, err := ix.rankPassages(context.Background(), text, max(AnswerPassages, rerankDepth), false)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range ps[:min(AnswerPassages, len(ps))] {
				fmt.Printf("  P%2d %.3f %s\n", i, p.Score, p.URL)
			}
		}
		a, err := ix.Answer(context.Background(), text)
		debugDecide = nil
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("  ANSWERED=%v: %s\n\n", a.Answered, a.Text())
	}
}

// TestCalibScore writes one line per tuning question (set, ok|MISS|OFF-ANSWERED|off, answer
// length, question) to CALIB_SCORE and prints each set's score and mean answer length: a
// tool for comparing two versions of the answerer on the tuning sets, never the held-out ones.
func TestCalibScore(t *testing.T) {
	out := calibEnv(t, "CALIB_SCORE")
	ix := shippedIndex(t)
	var b strings.Builder
	for _, set := range []string{"tune", "dev2", "dev3", "dev5", "dev6"} {
		good, total, n, chars, offAnswered := 0, 0, 0, 0, 0
		for _, q := range loadQA(t, set+".json") {
			a, err := ix.Answer(context.Background(), q.Question)
			if err != nil {
				t.Fatal(err)
			}
			mark := "off"
			if q.OffTopic {
				if a.Answered {
					mark = "OFF-ANSWERED"
					offAnswered++
				}
			} else {
				total++
				mark = "MISS"
				if a.Answered && regexp.MustCompile("(?i)"+q.Fact).MatchString(a.Text()) && cites(a, q.Sections) {
					mark = "ok"
					good++
				}
			}
			if a.Answered {
				n++
				chars += len(a.Text())
			}
			var quotes []string
			for _, x := range a.Quotes {
				quotes = append(quotes, x.Text)
			}
			fmt.Fprintf(&b, "%s\t%s\t%d\t%s\t%s\n", set, mark, len(a.Text()), q.Question, strings.Join(quotes, "\x1f"))
		}
		fmt.Printf("%s %d/%d off-answered=%d mean-len=%.0f\n", set, good, total, offAnswered, float64(chars)/float64(max(n, 1)))
	}
	writeCalib(t, out, b.String())
}

// TestCalibSpecWords prints the words of the files in CALIB_SPEC (the spec the outside
// question writers read) that the docs never use and have no synonym for: the vocabulary
// gap between the spec and the docs.
func TestCalibSpecWords(t *testing.T) {
	path := calibEnv(t, "CALIB_SPEC")
	ix := shippedIndex(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, term := range ix.terms(string(b)) {
		if !ix.ans.known[term] && len(ix.ans.syn[term]) == 0 {
			count[term]++
		}
	}
	var ws []string
	for w := range count {
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool { return count[ws[i]] > count[ws[j]] })
	for _, w := range ws {
		fmt.Printf("%s:%d ", w, count[w])
	}
	fmt.Println()
}

// calibEnv is the environment variable that asks for a calibration tool; without it the
// tool is skipped.
func calibEnv(t *testing.T, name string) string {
	v := os.Getenv(name)
	if v == "" {
		t.Skipf("%s not set", name)
	}
	return v
}

// writeCalib writes a calibration tool's output.
func writeCalib(t *testing.T, path, s string) {
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// calibTopN is how many units TestCalibTop prints: CALIB_N, or 12.
func calibTopN() int {
	if n, err := strconv.Atoi(os.Getenv("CALIB_N")); err == nil && n > 0 {
		return n
	}
	return 12
}
