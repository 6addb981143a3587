package review

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// guidelines is the labelling guidelines under the form: shown as
// markdown, and editable in place (Edit guidelines, then Save guidelines
// stores them with the dataset, under the reviewer's name as their editor).
type guidelines struct {
	f       *form
	view    *widget.RichText
	edit    *widget.Entry
	btn     *widget.Button
	stack   *fyne.Container
	editing bool
}

func (g *guidelines) init(f *form) {
	g.f = f
	g.view = widget.NewRichTextFromMarkdown("")
	g.view.Wrapping = fyne.TextWrapWord
	g.edit = widget.NewMultiLineEntry()
	g.edit.Wrapping = fyne.TextWrapWord
	g.btn = widget.NewButton("Edit guidelines", g.toggleEdit)
}

func (g *guidelines) build() fyne.CanvasObject {
	g.stack = container.NewStack(container.NewVScroll(g.view))
	return container.NewBorder(
		container.NewBorder(nil, nil, widget.NewLabelWithStyle("Guidelines", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), g.btn),
		nil, nil, nil, g.stack)
}

// show reads the guidelines from the store and shows them.
func (g *guidelines) show() {
	text, err := g.f.t.store.Guidelines(g.f.t.life)
	if err != nil {
		text = "Cannot read the guidelines: " + err.Error()
	}
	g.view.ParseMarkdown(text)
}

// toggleEdit opens the guidelines for editing, or saves the edit.
func (g *guidelines) toggleEdit() {
	if !g.editing {
		text, _ := g.f.t.store.Guidelines(g.f.t.life)
		g.edit.SetText(text)
		g.stack.Objects = []fyne.CanvasObject{g.edit}
		g.btn.SetText("Save guidelines")
		g.editing = true
		g.stack.Refresh()
		return
	}
	// The reviewer name in Settings is recorded as the version's editor.
	if err := g.f.t.store.SetGuidelinesAs(g.f.t.life, g.edit.Text, g.f.t.reviewer()); err != nil {
		g.f.setStatus(err.Error(), true)
		return
	}
	g.editing = false
	g.show()
	g.stack.Objects = []fyne.CanvasObject{container.NewVScroll(g.view)}
	g.btn.SetText("Edit guidelines")
	g.stack.Refresh()
	g.f.t.unfocus()
}
