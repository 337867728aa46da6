package exp

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strings"

	"github.com/paperlab/paperlab/toolkit/nb"
	"github.com/paperlab/paperlab/toolkit/repo"
)

//go:embed headlines.tsv
var headlinesTSV string

// Headline is one of the papers' headline claims (toolkit/exp/headlines.tsv): the claims an
// abstract makes, which `paperlab verdicts` gives one row each.
type Headline struct {
	ID          string   `json:"id"`
	Paper       string   `json:"paper"`
	Claim       string   `json:"claim"`
	PaperNumber string   `json:"paper_number"`
	Experiments []string `json:"experiments"`
	OurFigure   string   `json:"our_figure"`
	PaperFigure string   `json:"paper_figure"`
	Mapping     string   `json:"mapping"`
}

// Headlines parses the headline claims (headlines.tsv, embedded); an error names the line.
func Headlines() ([]Headline, error) { return parseHeadlines(headlinesTSV) }

func parseHeadlines(text string) ([]Headline, error) {
	var out []Headline
	header := true
	for i, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 8 {
			return nil, fmt.Errorf("headlines.tsv:%d: %d tab-separated fields, want 8", i+1, len(f))
		}
		if header {
			header = false
			continue
		}
		h := Headline{ID: f[0], Paper: f[1], Claim: f[2], PaperNumber: f[3], OurFigure: f[5], PaperFigure: f[6], Mapping: f[7]}
		if f[4] != "" {
			h.Experiments = strings.Split(f[4], ",")
		}
		out = append(out, h)
	}
	return out, nil
}

// VerdictCell is one experiment's verdict on a headline claim: the verdict of the experiment's
// first claim tagged with the headline's id (Claim.For), its effect, and what decides it.
type VerdictCell struct {
	Experiment string `json:"experiment"`
	Verdict    string `json:"verdict"`
	Effect     string `json:"effect"`
	DecidedBy  string `json:"decided_by"`
	Claim      string `json:"claim,omitempty"`
}

// VerdictRow is a headline claim with every experiment's verdict on it.
type VerdictRow struct {
	Headline
	Cells []VerdictCell `json:"verdicts"`
}

// NotRun is the verdict of a headline claim no experiment tests yet.
const NotRun = "not run"

// Verdicts judges the headline claims on results (experiment name → result; a missing result or
// experiment reads NotRun).
func Verdicts(results map[string]*Result) ([]VerdictRow, error) {
	hs, err := Headlines()
	if err != nil {
		return nil, err
	}
	judged := map[string]Judged{}
	for name, res := range results {
		j, err := JudgeResult(res)
		if err != nil {
			return nil, err
		}
		judged[name] = j
	}
	var rows []VerdictRow
	for _, h := range hs {
		row := VerdictRow{Headline: h}
		for _, e := range h.Experiments {
			cell := VerdictCell{Experiment: e, Verdict: NotRun, Effect: "—", DecidedBy: "no committed result"}
			if j, ok := judged[e]; ok {
				cell.DecidedBy = "no claim of this experiment tests it yet"
				if c, ok := HeadlineClaim(j.Claims, h.ID); ok {
					cell = cellOf(e, c)
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		if len(row.Cells) == 0 {
			row.Cells = []VerdictCell{{Verdict: NotRun, Effect: "—", DecidedBy: "no experiment tests it yet"}}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// HeadlineClaim is the claim of claims that reads headline id: the first with the id, passing over
// one marked IfTestable that is untestable on its run when a later claim has the id.
func HeadlineClaim(claims []Claim, id string) (Claim, bool) {
	var first *Claim
	for i, c := range claims {
		if c.Headline != id {
			continue
		}
		if first == nil {
			first = &claims[i]
		}
		if !(c.IfTestable && c.Verdict() == Untestable) {
			return c, true
		}
	}
	if first == nil {
		return Claim{}, false
	}
	return *first, true
}

// cellOf is an experiment's verdict cell from its claim c.
func cellOf(e string, c Claim) VerdictCell {
	cell := VerdictCell{Experiment: e, Verdict: c.VerdictText(), Effect: c.Interval(), Claim: c.Text}
	if c.Kind == KindNonInferior && c.Stat.N >= 2 {
		cell.Effect += fmt.Sprintf(" (lower end %+.3f vs −%g)", c.Stat.CI95[0], c.Margin)
	}
	if m := c.MDE(); c.Verdict() == NotSignificant && !math.IsNaN(m) {
		cell.Effect += fmt.Sprintf("; MDE %.3g at n = %d", m, c.Stat.N)
	}
	var by []string
	switch {
	case len(c.Untestable) > 0:
		by = append(by, "room check fails: "+strings.Join(c.Untestable, ", "))
	case c.Unmeasured != "":
		by = append(by, c.Unmeasured)
	case len(c.Room) > 0:
		by = append(by, "room checks pass: "+strings.Join(c.Room, ", "))
	}
	for _, n := range c.Notes {
		if strings.HasPrefix(n, "by construction: ") || strings.HasPrefix(n, "structural: ") || strings.Contains(n, "fixed step") ||
			strings.Contains(n, "front of ") {
			by = append(by, n)
		}
	}
	// how much each matched reading rests on: evaluated points, seeds left out
	for _, r := range append([]Claim{c}, c.Parts...) {
		for _, n := range r.Notes {
			if strings.HasPrefix(n, "matched points rest on") || strings.Contains(n, "seeds left out") {
				pre := ""
				if len(c.Parts) > 0 && r.Measure != c.Measure {
					pre = r.Measure + ": "
				}
				by = append(by, pre+n)
			}
		}
	}
	for _, r := range append([]Claim{c}, c.Parts...) {
		if r.Without != nil {
			w := r
			w.Stat, w.Diffs, w.Without = *r.Without, r.withoutDiffs(), nil
			pre := ""
			if len(c.Parts) > 0 {
				pre = r.Measure + ", "
			}
			by = append(by, fmt.Sprintf("%swithout outlier seed(s) %v (a sensitivity check): %s → %s", pre, r.Outliers, w.Interval(), w.Verdict()))
		}
	}
	if c.Context != "" {
		by = append(by, "context: "+c.Context)
	}
	if len(by) == 0 {
		by = []string{"no room check"}
	}
	cell.DecidedBy = strings.Join(by, "; ")
	return cell
}

// CommittedResults loads figures/<name>/metrics.json of every experiment the headline claims name
// (those without a committed result are left out: their rows read NotRun).
func CommittedResults() (map[string]*Result, error) {
	hs, err := Headlines()
	if err != nil {
		return nil, err
	}
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	out := map[string]*Result{}
	for _, h := range hs {
		for _, e := range h.Experiments {
			if _, ok := out[e]; ok {
				continue
			}
			res, err := Load(filepath.Join(root, "figures", e))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out[e] = res
		}
	}
	return out, nil
}

// VerdictTable is the verdict table: one row per headline claim, the experiments testing it
// joined in each cell by sep ("<br>" in Markdown).
func VerdictTable(rows []VerdictRow, sep string) (headers []string, out [][]string) {
	headers = []string{"id", "headline claim", "paper's number", "our verdict", "effect [95% CI]", "decided by", "figure (paper's: mapping)"}
	for _, r := range rows {
		var v, eff, by []string
		for _, c := range r.Cells {
			pre := ""
			if len(r.Cells) > 1 {
				pre = c.Experiment + ": "
			}
			v, eff, by = append(v, pre+c.Verdict), append(eff, pre+c.Effect), append(by, pre+c.DecidedBy)
		}
		fig := r.OurFigure
		if fig != "—" && fig != "" {
			fig = "`figures/" + fig + "`"
		}
		out = append(out, []string{r.ID, r.Claim, r.PaperNumber, strings.Join(v, sep), strings.Join(eff, sep), strings.Join(by, sep),
			fmt.Sprintf("%s (%s: %s)", fig, r.PaperFigure, r.Mapping)})
	}
	return headers, out
}

// VerdictsBegin and VerdictsEnd delimit the README's generated verdict table (VerdictsMarkdown).
const (
	VerdictsBegin = "<!-- verdicts:begin — generated by `go run ./toolkit/cmd/paperlab verdicts -readme`; a test keeps it equal to the code -->"
	VerdictsEnd   = "<!-- verdicts:end -->"
)

// CountClaims is how many claims the results' experiments check in all (Judge).
func CountClaims(results map[string]*Result) (int, error) {
	n := 0
	for _, res := range results {
		j, err := JudgeResult(res)
		if err != nil {
			return 0, err
		}
		n += len(j.Claims)
	}
	return n, nil
}

// VerdictsMarkdown is the README's verdict table between VerdictsBegin and VerdictsEnd, with a
// line saying how many claims the experiments check in all (claims; 0 leaves it out).
func VerdictsMarkdown(rows []VerdictRow, claims int) string {
	h, r := VerdictTable(rows, "<br>")
	var b strings.Builder
	b.WriteString(VerdictsBegin + "\n")
	if claims > 0 {
		fmt.Fprintf(&b, "The experiments check %d claims in all, so some \"holds\" among them are expected by chance (about 1 in 40 of the true nulls, on each side): the %d rows below are the ones to read.\n\n", claims, len(rows))
	}
	b.WriteString("| " + strings.Join(h, " | ") + " |\n|" + strings.Repeat("---|", len(h)) + "\n")
	for _, row := range r {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = strings.ReplaceAll(c, "|", "\\|")
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString(VerdictsEnd)
	return b.String()
}

// ReplaceBlock returns text with the block between begin and end (markers included) replaced by
// block (which carries the markers); an error when the markers are missing.
func ReplaceBlock(text, begin, end, block string) (string, error) {
	i := strings.Index(text, begin)
	j := strings.Index(text, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("no generated block (%q … %q)", begin, end)
	}
	return text[:i] + block + text[j+len(end):], nil
}

// ShowVerdicts shows, in a notebook (text elsewhere), the verdict rows of the headline claims an
// experiment tests, read from res: the table a paper notebook puts at the top of its results.
func ShowVerdicts(res *Result) error {
	rows, err := Verdicts(map[string]*Result{res.Experiment: res})
	if err != nil {
		return err
	}
	var mine []VerdictRow
	for _, r := range rows {
		for _, c := range r.Cells {
			if c.Experiment == res.Experiment {
				r.Cells = []VerdictCell{c}
				mine = append(mine, r)
				break
			}
		}
	}
	head := fmt.Sprintf("**Verdicts on the paper's headline claims** (%s; `paperlab verdicts` lists all papers'). The rows below are the ones to read: the experiment tests many more claims, and among those some \"holds\" are expected by chance.", res.Experiment)
	h, r := VerdictTable(mine, "; ")
	if nb.IsNotebook() {
		nb.Markdown(head)
		nb.Table(h, r)
		nb.Sync()
		return nil
	}
	fmt.Println(strings.ReplaceAll(head, "**", ""))
	fmt.Print(nb.TableText(h, r))
	return nil
}
