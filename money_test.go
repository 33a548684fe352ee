package adcamp

import "testing"

func TestParseMoney(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Money
		wantErr bool
	}{
		{"12", 1200, false},
		{"12.5", 1250, false},
		{"12.50", 1250, false},
		{"12.500", 1250, false},
		{"0.01", 1, false},
		{"0.1", 10, false},
		{"0", 0, false},
		{"-3.25", -325, false},
		{"1e2", 10000, false},
		{"1.5E1", 1500, false},
		{"125e-2", 125, false},
		{"1000000.00", 100000000, false},
		{"12.345", 0, true},
		{"0.001", 0, true},
		{"1e-3", 0, true},
		{"1e300", 0, true},
		{"99999999999999999999", 0, true},
		{"", 0, true},
		{"abc", 0, true},
		{"1.", 0, true},
		{".5", 0, true},
		{"1.2.3", 0, true},
		{"--1", 0, true},
		{"1e", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseMoney(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseMoney(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestMoneyString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   Money
		want string
	}{{0, "0.00"}, {1, "0.01"}, {1250, "12.50"}, {100000000, "1000000.00"}, {-5, "-0.05"}}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("Money(%d).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzParseMoney(f *testing.F) {
	for _, s := range []string{"12.5", "0.01", "1e2", "-3", "1.999", "1e-20"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMoney(s)
		if err != nil {
			return
		}
		// Whatever parses must round-trip through its own formatting.
		back, err := ParseMoney(m.String())
		if err != nil || back != m {
			t.Fatalf("ParseMoney(%q) = %d, but its String %q parses to %d, %v", s, m, m.String(), back, err)
		}
	})
}
