package overlay

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/png"
	"io"
	"sort"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/software"

	"waymark/engine/action"
)

// An episode as an animated GIF: each frame is a screenshot with its
// action drawn on it as the View draws it, over a caption line. All frames
// share one palette of at most 256 colours, chosen from the colours the
// screenshots use most (pages are mostly flat colours) plus the marks' own;
// a frame after the first stores only the rectangle that changed, so a
// 20-step episode stays small.

// CaptionHeight is the height of the caption line under each frame.
const CaptionHeight = 26

// GIFFrame is one picture of an animated episode.
type GIFFrame struct {
	// Screenshot is a PNG (nil: the "no screenshot" picture); Action the
	// action drawn on it (nil: none) and Pointer where the pointer was
	// before it (see View.SetPointer).
	Screenshot []byte
	Action     *action.Action
	Pointer    *image.Point
	// Caption is the text of the line under the picture.
	Caption string
	// Delay is how long the frame shows.
	Delay time.Duration
}

var (
	captionBG = color.NRGBA{0x20, 0x22, 0x28, 0xFF}
	captionFG = color.NRGBA{0xF2, 0xF2, 0xF2, 0xFF}
	finishFG  = color.NRGBA{0x1B, 0x8E, 0x3E, 0xFF}
)

// RenderFrame draws one frame: 800×(600+CaptionHeight) pixels. It needs a
// Fyne app (fyne.CurrentApp) for the text; it never opens a window.
func RenderFrame(f GIFFrame) (*image.NRGBA, error) {
	v := New()
	v.SetPointer(f.Pointer)
	if err := v.SetPNG(f.Screenshot, f.Action); err != nil {
		return nil, err
	}
	capText := canvas.NewText(f.Caption, captionFG)
	capText.TextSize = 14
	capText.TextStyle = fyne.TextStyle{Bold: true}
	bar := container.NewStack(canvas.NewRectangle(captionBG), container.New(&captionLayout{}, capText))
	content := container.NewWithoutLayout(v, bar)
	c := software.NewCanvas()
	c.SetPadded(false)
	c.SetContent(content)
	c.Resize(fyne.NewSize(vw, vh+CaptionHeight))
	v.Resize(fyne.NewSize(vw, vh))
	bar.Resize(fyne.NewSize(vw, CaptionHeight))
	bar.Move(fyne.NewPos(0, vh))
	img := c.Capture()
	out := image.NewNRGBA(image.Rect(0, 0, int(vw), int(vh)+CaptionHeight))
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out, nil
}

// captionLayout places the caption's text 8 pixels from the left, centred
// vertically.
type captionLayout struct{}

func (captionLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		ms := o.MinSize()
		o.Resize(ms)
		o.Move(fyne.NewPos(8, (size.Height-ms.Height)/2))
	}
}

func (captionLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(vw, CaptionHeight)
}

// key15 is a colour cut to 5 bits a channel: the palette's bins.
func key15(r, g, b uint8) uint16 { return uint16(r>>3)<<10 | uint16(g>>3)<<5 | uint16(b>>3) }

// buildPalette picks up to 256 colours: the marks' and the caption's, then
// the most used bins of the screenshots (each bin's mean colour).
func buildPalette(frames []GIFFrame) (color.Palette, error) {
	type bin struct {
		n       int
		r, g, b int
		key     uint16
	}
	bins := map[uint16]*bin{}
	for _, f := range frames {
		if len(f.Screenshot) == 0 {
			continue
		}
		img, err := png.Decode(bytes.NewReader(f.Screenshot))
		if err != nil {
			return nil, fmt.Errorf("screenshot is not a readable PNG: %w", err)
		}
		b := img.Bounds()
		// Every second pixel of every second row is plenty for a histogram.
		for y := b.Min.Y; y < b.Max.Y; y += 2 {
			for x := b.Min.X; x < b.Max.X; x += 2 {
				c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
				k := key15(c.R, c.G, c.B)
				bn := bins[k]
				if bn == nil {
					bn = &bin{key: k}
					bins[k] = bn
				}
				bn.n++
				bn.r += int(c.R)
				bn.g += int(c.G)
				bn.b += int(c.B)
			}
		}
	}
	fixed := []color.NRGBA{captionBG, captionFG, Accent, finishFG, {0xFF, 0xFF, 0xFF, 0xFF}, {0, 0, 0, 0xFF}, empty,
		{0xBB, 0xBB, 0xBB, 0xFF}, {0xFF, 0x8F, 0xAC, 0xFF}, {0x8D, 0xC6, 0x9E, 0xFF}}
	pal := color.Palette{}
	seen := map[uint16]bool{}
	for _, c := range fixed {
		pal = append(pal, c)
		seen[key15(c.R, c.G, c.B)] = true
	}
	list := make([]*bin, 0, len(bins))
	for _, b := range bins {
		list = append(list, b)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].n != list[j].n {
			return list[i].n > list[j].n
		}
		return list[i].key < list[j].key
	})
	for _, b := range list {
		if len(pal) == 256 {
			break
		}
		if seen[b.key] {
			continue
		}
		pal = append(pal, color.NRGBA{uint8(b.r / b.n), uint8(b.g / b.n), uint8(b.b / b.n), 0xFF})
	}
	return pal, nil
}

// quantizer maps colours to the palette, nearest by squared distance, with
// a cache per 15-bit bin.
type quantizer struct {
	pal   color.Palette
	cache map[uint16]uint8
}

func (q *quantizer) index(r, g, b uint8) uint8 {
	k := key15(r, g, b)
	if i, ok := q.cache[k]; ok {
		return i
	}
	i := uint8(q.pal.Index(color.NRGBA{r, g, b, 0xFF}))
	q.cache[k] = i
	return i
}

func (q *quantizer) paletted(img *image.NRGBA) *image.Paletted {
	b := img.Bounds()
	p := image.NewPaletted(b, q.pal)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[(y-b.Min.Y)*img.Stride:]
		prow := p.Pix[(y-b.Min.Y)*p.Stride:]
		for x := 0; x < b.Dx(); x++ {
			prow[x] = q.index(row[4*x], row[4*x+1], row[4*x+2])
		}
	}
	return p
}

// changed is the smallest rectangle holding every pixel where a and b
// differ (empty when none).
func changed(a, b *image.Paletted) image.Rectangle {
	r := image.Rectangle{}
	bd := a.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		ra := a.Pix[(y-bd.Min.Y)*a.Stride : (y-bd.Min.Y)*a.Stride+bd.Dx()]
		rb := b.Pix[(y-bd.Min.Y)*b.Stride : (y-bd.Min.Y)*b.Stride+bd.Dx()]
		if bytes.Equal(ra, rb) {
			continue
		}
		x0, x1 := 0, bd.Dx()-1
		for ra[x0] == rb[x0] {
			x0++
		}
		for ra[x1] == rb[x1] {
			x1--
		}
		row := image.Rect(bd.Min.X+x0, y, bd.Min.X+x1+1, y+1)
		if r.Empty() {
			r = row
		} else {
			r = r.Union(row)
		}
	}
	return r
}

// WriteGIF renders frames and writes them as one looping animated GIF.
func WriteGIF(w io.Writer, frames []GIFFrame) error {
	if len(frames) == 0 {
		return errors.New("no frames to write")
	}
	pal, err := buildPalette(frames)
	if err != nil {
		return err
	}
	q := &quantizer{pal: pal, cache: map[uint16]uint8{}}
	out := &gif.GIF{Config: image.Config{ColorModel: pal, Width: int(vw), Height: int(vh) + CaptionHeight}}
	var prev *image.Paletted
	for i, f := range frames {
		img, err := RenderFrame(f)
		if err != nil {
			return fmt.Errorf("frame %d: %w", i+1, err)
		}
		p := q.paletted(img)
		full := p
		if prev != nil {
			r := changed(prev, p)
			if r.Empty() {
				r = image.Rect(0, 0, 1, 1) // an unchanged frame still shows for its delay
			}
			p = p.SubImage(r).(*image.Paletted)
		}
		prev = full
		out.Image = append(out.Image, p)
		out.Delay = append(out.Delay, int(f.Delay/(10*time.Millisecond)))
		out.Disposal = append(out.Disposal, gif.DisposalNone)
	}
	return gif.EncodeAll(w, out)
}
