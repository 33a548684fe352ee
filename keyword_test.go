package adcamp

import "testing"

func TestKeywordKey(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ a, b string }{
		{"red hat", "red\u00a0hat"},
		{"red  shoes", "red shoes"},
		{"red \t\u3000 shoes", "red shoes"},
		{" red shoes ", "red shoes"},
		{"ＡＢＣ", "abc"},
		{"ﬁne", "fine"},
		{"STRASSE", "straße"},
		{"Café", "Cafe\u0301"},
		{"ΣΊΣΥΦΟΣ", "σίσυφος"},
	} {
		if ka, kb := KeywordKey(tt.a), KeywordKey(tt.b); ka != kb {
			t.Errorf("KeywordKey(%q) = %q, KeywordKey(%q) = %q; want them equal", tt.a, ka, tt.b, kb)
		}
	}
	for _, tt := range []struct{ a, b string }{
		{"red shoes", "redshoes"},
		{"red shoes", "red shoe"},
		{"café", "cafe"},
	} {
		if KeywordKey(tt.a) == KeywordKey(tt.b) {
			t.Errorf("KeywordKey(%q) = KeywordKey(%q) = %q; want them apart", tt.a, tt.b, KeywordKey(tt.a))
		}
	}
	if k := KeywordKey("Red\u00a0\u00a0Hat"); k != "red hat" {
		t.Errorf(`KeywordKey("Red\u00a0\u00a0Hat") = %q, want "red hat"`, k)
	}
	for _, s := range []string{"ＡＢＣ  Ｄ", "ǅ", "ﬃ", "Ⅻ", "ｶﾞ"} { // stable: a key is its own key
		if k := KeywordKey(s); KeywordKey(k) != k {
			t.Errorf("KeywordKey(KeywordKey(%q)) = %q, want %q", s, KeywordKey(k), k)
		}
	}
}
