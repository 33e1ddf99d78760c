//go:build calib

// A calibration tool, not a test: it asserts nothing, so it is built only with -tags calib
// (CALIB_OUT=file go test -tags calib -run TestCalibDump ./search/).

package search

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestCalibDump writes, for calibrating the answer thresholds, the features of every
// tuning question's best unit (never the test half's) and whether the answer would be
// right if it were not declined: with CALIB_OUT=file, one tab-separated line a question
// (set, right|sect|wrong|off, heaviest term held, coverage, own, section coverage, heading
// coverage, score, next section's score, unknown share, weight, terms, question).
func TestCalibDump(t *testing.T) {
	out := os.Getenv("CALIB_OUT")
	if out == "" {
		t.Skip("CALIB_OUT not set")
	}
	ix := shippedIndex(t)
	var b strings.Builder
	for _, set := range []string{"tune", "dev2", "dev3", "dev5", "dev6"} {
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
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", set, label, f, qq.Question)
		}
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
