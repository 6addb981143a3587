package practice

import (
	"fmt"
	"html/template"
)

// productArt draws a product picture as inline SVG: a shape for the kind of
// product in its colour, on a soft background. No image files, no network.
func productArt(kind, color string, size int) template.HTML {
	shape, ok := shapes[kind]
	if !ok {
		shape = shapes["box"]
	}
	return template.HTML(fmt.Sprintf(`<svg class="art" width="%d" height="%d" viewBox="0 0 200 160" role="img" aria-label="%s"><rect width="200" height="160" rx="10" fill="#f1f3f0"/><ellipse cx="100" cy="140" rx="70" ry="8" fill="#0001"/>%s</svg>`,
		size, size*160/200, template.HTMLEscapeString(kind), fmt.Sprintf(shape, color)))
}

var shapes = map[string]string{
	"shoe": `<path d="M30 112 L34 82 Q36 74 46 76 L78 84 Q96 64 110 70 L120 88 Q150 92 168 102 Q178 108 174 118 L36 122 Q28 120 30 112Z" fill="%s"/>` +
		`<path d="M32 118 L174 116 L172 126 L34 128Z" fill="#eee"/><path d="M86 80 L100 90 M94 76 L108 86" stroke="#fff" stroke-width="3"/>`,
	"boot": `<path d="M52 30 L100 30 L104 92 Q140 96 160 106 Q172 112 168 122 L48 124 Q42 122 44 112Z" fill="%s"/>` +
		`<path d="M44 120 L168 118 L166 130 L46 132Z" fill="#3a2a20"/><path d="M62 44 L92 44 M62 56 L92 56 M62 68 L92 68 M62 80 L94 80" stroke="#f5e6c8" stroke-width="3"/>`,
	"sandal": `<path d="M34 112 Q40 100 100 102 Q160 100 170 112 L168 122 L36 124Z" fill="#555"/><path d="M60 110 Q80 70 100 110 M110 108 Q130 72 150 108" stroke="%s" stroke-width="10" fill="none"/>`,
	"jacket": `<path d="M70 28 L100 38 L130 28 L168 52 L156 86 L142 78 L142 136 L58 136 L58 78 L44 86 L32 52Z" fill="%s"/>` +
		`<path d="M100 38 L100 136" stroke="#0004" stroke-width="3"/><path d="M84 30 Q100 48 116 30" stroke="#0003" stroke-width="4" fill="none"/><rect x="66" y="96" width="20" height="4" fill="#0003"/><rect x="114" y="96" width="20" height="4" fill="#0003"/>`,
	"backpack": `<rect x="56" y="34" width="88" height="104" rx="22" fill="%s"/><rect x="70" y="84" width="60" height="40" rx="8" fill="#0002"/>` +
		`<path d="M80 34 Q100 12 120 34" stroke="#333" stroke-width="6" fill="none"/><path d="M72 60 L128 60" stroke="#0003" stroke-width="4"/>`,
	"tent":        `<path d="M20 134 L100 36 L180 134Z" fill="%s"/><path d="M100 36 L78 134 L122 134Z" fill="#0003"/><path d="M100 36 L100 134" stroke="#0004" stroke-width="2"/><path d="M10 134 L190 134" stroke="#555" stroke-width="3"/>`,
	"sleepingbag": `<path d="M40 60 Q40 40 70 40 L160 48 Q178 52 176 80 L172 112 Q168 130 150 128 L60 124 Q40 120 40 100Z" fill="%s"/><ellipse cx="64" cy="76" rx="16" ry="22" fill="#0003"/><path d="M90 50 L86 122 M120 52 L118 126 M150 56 L148 126" stroke="#fff4" stroke-width="3"/>`,
	"bottle":      `<rect x="80" y="20" width="40" height="16" rx="4" fill="#444"/><rect x="72" y="34" width="56" height="104" rx="14" fill="%s"/><rect x="72" y="62" width="56" height="14" fill="#fff5"/>`,
	"lamp":        `<path d="M40 80 Q100 40 160 80" stroke="#444" stroke-width="10" fill="none"/><rect x="76" y="68" width="48" height="36" rx="8" fill="%s"/><circle cx="100" cy="86" r="12" fill="#ffe9a0"/><path d="M100 104 L70 150 L130 150Z" fill="#fff6b0" opacity=".6"/>`,
	"sock":        `<path d="M70 20 L112 20 L112 94 Q150 100 156 120 Q160 136 140 138 L86 136 Q66 132 70 110Z" fill="%s"/><rect x="70" y="20" width="42" height="16" fill="#fff5"/><path d="M112 110 Q140 112 150 130" stroke="#fff5" stroke-width="6" fill="none"/>`,
	"hat":         `<path d="M46 110 Q46 40 100 40 Q154 40 154 110Z" fill="%[1]s"/><rect x="40" y="104" width="120" height="24" rx="8" fill="%[1]s"/><rect x="40" y="104" width="120" height="24" rx="8" fill="#0002"/><circle cx="100" cy="36" r="12" fill="#eee"/>`,
	"poles":       `<path d="M70 20 L92 140 M130 20 L108 140" stroke="%s" stroke-width="7"/><rect x="62" y="16" width="16" height="30" rx="6" fill="#b88a55"/><rect x="122" y="16" width="16" height="30" rx="6" fill="#b88a55"/>`,
	"box":         `<rect x="50" y="40" width="100" height="90" rx="8" fill="%s"/>`,
}
