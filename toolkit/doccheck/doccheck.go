// Package doccheck keeps the repository speaking to its readers: no tracked file points at a path
// outside the repository, text a user reads (Markdown, notebooks, committed results, Go string
// literals: settings, claim and room-check texts) names no issue number, and every relative link in
// the Markdown files resolves, to a file and, for a Markdown target, to one of its headings. Its test
// runs these checks over the tracked files.
package doccheck

import (
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Finding is one problem at a line of a file.
type Finding struct {
	File string
	Line int
	What string
}

func (f Finding) String() string { return fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.What) }

var (
	// issueRef matches an issue number (the word, an optional "#" or "-", digits; "issues" with a range) and the
	// phrases that point at the project's tracker without one.
	issueRef = regexp.MustCompile(`(?i)\bissues?\s?#?-?[0-9]+|follow-up` + ` issue|issues? of` + ` this wave`) // split: this file names no issue
	// privatePath matches paths to the project's notes outside the repository.
	privatePath = regexp.MustCompile(`\.\./shared\b|\bshared/(papers|engines\.md|review-checklist|seeds|anchors)`)
	// mdLink matches a Markdown inline link or image: [text](target "title").
	mdLink  = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeRun = regexp.MustCompile("`[^`]*`")
)

// IssueRefs returns the issue references in one line of text.
func IssueRefs(line string) []string { return issueRef.FindAllString(line, -1) }

// PrivatePaths returns the paths outside the repository named in one line of text.
func PrivatePaths(line string) []string { return privatePath.FindAllString(line, -1) }

// Lines applies match to every line of text and reports each hit as a Finding of file.
func Lines(file, text string, match func(string) []string, what string) []Finding {
	var out []Finding
	for i, line := range strings.Split(text, "\n") {
		seen := map[string]bool{} // a long line (a notebook output) repeats its hits: each once
		for _, m := range match(line) {
			if !seen[m] {
				seen[m] = true
				out = append(out, Finding{file, i + 1, fmt.Sprintf("%s %q", what, m)})
			}
		}
	}
	return out
}

// GoStrings reports the issue references in the string literals of a Go source (comments are not
// scanned: they are the code's, not the user's).
func GoStrings(file string, src []byte) []Finding {
	var s scanner.Scanner
	fset := token.NewFileSet()
	f := fset.AddFile(file, -1, len(src))
	s.Init(f, src, nil, 0)
	var out []Finding
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok != token.STRING {
			continue
		}
		v, err := strconv.Unquote(lit)
		if err != nil {
			v = lit
		}
		for _, m := range IssueRefs(v) {
			out = append(out, Finding{file, fset.Position(pos).Line, fmt.Sprintf("issue reference %q in a string", m)})
		}
	}
}

// Link is a relative link of a Markdown file.
type Link struct {
	Line   int
	Target string
}

// MarkdownLinks returns the relative links of a Markdown text: inline links and images outside
// code blocks and code spans, other than URLs (a scheme) and mailto.
func MarkdownLinks(md string) []Link {
	var out []Link
	fenced := false
	for i, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeRun.ReplaceAllString(line, "")
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			t := m[1]
			if strings.Contains(t, "://") || strings.HasPrefix(t, "mailto:") {
				continue
			}
			out = append(out, Link{i + 1, t})
		}
	}
	return out
}

// Anchors are the heading anchors a code host gives a Markdown text (GitHub's rule: lower case,
// punctuation other than '-' and '_' dropped, spaces to '-', a repeated heading suffixed -1, -2, …).
func Anchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// CheckLinks reports the relative links of the Markdown file at root/rel that do not resolve: to no
// file, or to a heading the target (this file for "#anchor") does not have.
func CheckLinks(root, rel string) ([]Finding, error) {
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, l := range MarkdownLinks(string(b)) {
		path, frag, _ := strings.Cut(l.Target, "#")
		target := filepath.Join(root, rel)
		if path != "" {
			target = filepath.Join(filepath.Dir(target), filepath.FromSlash(path))
			if _, err := os.Stat(target); err != nil {
				out = append(out, Finding{rel, l.Line, fmt.Sprintf("link %q: no such file", l.Target)})
				continue
			}
		}
		if frag == "" || !strings.HasSuffix(target, ".md") {
			continue
		}
		t, err := os.ReadFile(target)
		if err != nil {
			out = append(out, Finding{rel, l.Line, fmt.Sprintf("link %q: %v", l.Target, err)})
			continue
		}
		if !Anchors(string(t))[frag] {
			out = append(out, Finding{rel, l.Line, fmt.Sprintf("link %q: no heading with anchor #%s", l.Target, frag)})
		}
	}
	return out, nil
}
