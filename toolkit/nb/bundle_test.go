package nb

import (
	"strings"
	"testing"

	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// A figure must render in an untrusted notebook: PNG present, no HTML (which Jupyter sanitises).
func TestFigureBundleRendersUntrusted(t *testing.T) {
	d := FigureBundle("t", []byte{0x89, 'P', 'N', 'G'}, "<svg/>", 720)
	if _, ok := d.Data[protocol.MIMETextHTML]; ok {
		t.Fatal("a figure bundle must not carry text/html")
	}
	if _, ok := d.Data[protocol.MIMEImagePNG].([]byte); !ok {
		t.Fatal("no PNG in the bundle")
	}
	if d.Data[protocol.MIMEImageSVG] != "<svg/>" || !strings.Contains(d.Data[protocol.MIMETextPlain].(string), "t") {
		t.Fatalf("bundle %v", d.Data)
	}
	if w := d.Metadata["image/png"].(map[string]int)["width"]; w != 720 {
		t.Fatalf("display width %d", w)
	}
}

func TestAnimationBundleHasDataURIImage(t *testing.T) {
	d := AnimationBundle(`a "b"`, []byte("GIF89a"), []byte("png"), 480)
	h := d.Data[protocol.MIMETextHTML].(string)
	if !strings.HasPrefix(h, `<img src="data:image/gif;base64,R0lGODlh"`) || !strings.Contains(h, "&#34;b&#34;") {
		t.Fatalf("html %q", h)
	}
	if _, ok := d.Data[MIMEImageGIF].([]byte); !ok {
		t.Fatal("no image/gif")
	}
}
