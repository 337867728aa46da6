// Command widgetcheck drives a live notebook in headless Chromium the way a user does: it opens a
// notebook served by a running Jupyter, executes its cells up to the one that calls probe.Explore,
// waits for the gonb threshold slider, moves it, checks that the precision/coverage line follows,
// presses "done" and checks that the cell ends with the last state persisted.
//
//	widgetcheck -url http://127.0.0.1:PORT/notebooks/NAME.ipynb [-chromium chromium] [-timeout 6m]
//
// scripts/widgets.sh starts Jupyter and calls it (part of `make test-browser`).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

func main() {
	url := flag.String("url", "", "the notebook's URL on a running Jupyter (classic Notebook)")
	bin := flag.String("chromium", "chromium", "Chromium executable")
	timeout := flag.Duration("timeout", 6*time.Minute, "overall time limit")
	flag.Parse()
	if *url == "" {
		fmt.Fprintln(os.Stderr, "widgetcheck: -url is required")
		os.Exit(2)
	}
	if err := run(*url, *bin, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "widgetcheck:", err)
		os.Exit(1)
	}
}

// js evaluates a JavaScript expression.
func js[T any](ctx context.Context, expr string) (T, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr))
}

// waitFor polls a boolean JavaScript expression until it is true.
func waitFor(ctx context.Context, what, expr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		if ok, err := js[bool](ctx, expr); err == nil && ok {
			return nil
		}
		if time.Now().After(deadline) {
			out, _ := js[string](ctx, `Array.from(document.querySelectorAll('.output_area')).map(e => e.innerText).join('\n---\n').slice(-3000)`)
			return fmt.Errorf("timed out after %s waiting for %s; last outputs:\n%s", limit, what, out)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// thresholdLine is the text of the latest "<score> ≥ <t>: answer …" paragraph on the page.
const thresholdLine = `(() => { const ps = Array.from(document.querySelectorAll('.output_area p')).map(p => p.innerText).filter(t => t.includes(' ≥ ') && t.includes('coverage')); return ps.length ? ps[ps.length-1] : ''; })()`

func run(url, bin string, timeout time.Duration) error {
	dir, err := os.MkdirTemp("", "widgetcheck")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(dir), chromedp.WindowSize(1400, 1000))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
		return fmt.Errorf("open %s: %w", url, err)
	}
	if err := waitFor(ctx, "the kernel", `typeof Jupyter !== 'undefined' && !!Jupyter.notebook && !!Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected()`, 2*time.Minute); err != nil {
		return err
	}
	idx, err := js[int](ctx, `(() => { Jupyter.notebook.set_autosave_interval(0); return Jupyter.notebook.get_cells().findIndex(c => c.cell_type === 'code' && c.get_text().includes('probe.Explore(')); })()`)
	if err != nil {
		return err
	}
	if idx < 0 {
		return fmt.Errorf("no cell calls probe.Explore")
	}
	fmt.Printf("widgetcheck: executing cells 0..%d\n", idx)
	if _, err := js[bool](ctx, fmt.Sprintf(`(Jupyter.notebook.execute_cell_range(0, %d), true)`, idx+1)); err != nil {
		return err
	}
	if err := waitFor(ctx, "the threshold slider", `!!document.querySelector('.output_area input[type=range]') && Array.from(document.querySelectorAll('.output_area button')).some(b => b.innerText === 'done')`, 4*time.Minute); err != nil {
		return err
	}
	if err := waitFor(ctx, "the first threshold line", thresholdLine+` !== ''`, time.Minute); err != nil {
		return err
	}
	first, _ := js[string](ctx, thresholdLine)
	fmt.Printf("widgetcheck: slider shown; %q\n", first)
	for _, v := range []int{80, 95} {
		move := fmt.Sprintf(`(() => { const s = document.querySelector('.output_area input[type=range]'); s.value = %d; s.dispatchEvent(new Event('input')); s.dispatchEvent(new Event('change')); return true; })()`, v)
		if _, err := js[bool](ctx, move); err != nil {
			return err
		}
		want := fmt.Sprintf("≥ %.2f", float64(v)/100)
		if err := waitFor(ctx, "the line for "+want, thresholdLine+fmt.Sprintf(`.includes(%q)`, want), time.Minute); err != nil {
			return err
		}
		line, _ := js[string](ctx, thresholdLine)
		fmt.Printf("widgetcheck: moved to %d: %q\n", v, line)
		if line == first {
			return fmt.Errorf("the line did not change: %q", line)
		}
	}
	if _, err := js[bool](ctx, `(() => { Array.from(document.querySelectorAll('.output_area button')).find(b => b.innerText === 'done').click(); return true; })()`); err != nil {
		return err
	}
	// The cell returns: the kernel goes idle, the slider is gone and the last state stays.
	if err := waitFor(ctx, "the cell to finish", `document.querySelector('#kernel_indicator_icon').classList.contains('kernel_idle_icon') && !document.querySelector('.output_area input[type=range]')`, time.Minute); err != nil {
		return err
	}
	last, _ := js[string](ctx, thresholdLine)
	if !strings.Contains(last, "≥ 0.95") {
		return fmt.Errorf("after done the persisted line is %q, want the last threshold 0.95", last)
	}
	fmt.Printf("widgetcheck: done pressed; cell finished with %q\n", last)
	return nil
}
