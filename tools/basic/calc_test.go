package basic

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEval(t *testing.T) {
	tests := []struct {
		expr string
		want float64
	}{
		{"1+2", 3},
		{"2*(3+4)", 14},
		{"2+3*4", 14},
		{"(2+3)*4", 20},
		{"10/4", 2.5},
		{"10 % 4", 2},
		{"-7 % 3", -1},
		{"7.5 % 2", 1.5},
		{"2^10", 1024},
		{"2**10", 1024},
		{"2^3^2", 512},
		{"-2^2", -4},
		{"(-2)^2", 4},
		{"2^-1", 0.5},
		{"--3", 3},
		{"+-+3", -3},
		{"1 - -1", 2},
		{"1.5e3", 1500},
		{"1.5E-3", 0.0015},
		{"2e+2", 200},
		{".5", 0.5},
		{"5.", 5},
		{"1e-400", 0},
		{"pi", math.Pi},
		{"PI", math.Pi},
		{"e", math.E},
		{"sqrt(16)", 4},
		{"Sqrt(2)^2", 2.0000000000000004},
		{"abs(-3)", 3},
		{"round(2.5)", 3},
		{"round(-2.5)", -3},
		{"floor(-1.5)", -2},
		{"ceil(1.2)", 2},
		{"min(3, 1, 2)", 1},
		{"max(3, 1, 2)", 3},
		{"max(7)", 7},
		{"ln(e)", 1},
		{"log10(1000)", 3},
		{"sin(0)", 0},
		{"cos(0)", 1},
		{"tan(0)", 0},
		{"sin(pi/2) + cos(0)*2", 3},
		{" \t1 +\n 2\r\n", 3},
		{"min(1+1, max(2*3, 4), sqrt(9))", 2},
		{"-0", 0},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := Eval(tt.expr)
			if err != nil {
				t.Fatalf("Eval(%q) error: %v", tt.expr, err)
			}
			if got != tt.want {
				t.Errorf("Eval(%q) = %v; want %v", tt.expr, got, tt.want)
			}
		})
	}
}

func TestEvalErrors(t *testing.T) {
	tests := []struct {
		expr string
		want string
	}{
		{"", "empty expression; write one like 2*(3+4)"},
		{"   ", "empty expression; write one like 2*(3+4)"},
		{"(1+2))", "unexpected ')' at column 6"},
		{"1 + (2 * 3))", "unexpected ')' at column 12"},
		{"1 +", "unexpected end of expression at column 4"},
		{"(1+2", "unclosed '(' at column 1"},
		{"sqrt(4", "unclosed '(' at column 5"},
		{"1 / 0", "division by zero at column 3"},
		{"1 / (2-2)", "division by zero at column 3"},
		{"5 % 0", "modulo by zero at column 3"},
		{"0^-1", "zero to a negative power (division by zero) at column 2"},
		{"1 2", "unexpected '2' at column 3"},
		{"2e", "unexpected 'e' at column 2"},
		{"2(3)", "unexpected '(' at column 2"},
		{"1.2.3", "unexpected '.3' at column 4"},
		{".", "unexpected '.' at column 1"},
		{"1 $ 2", "unexpected '$' at column 3"},
		{"λ+1", "unexpected 'λ' at column 1"},
		{"1+λ", "unexpected 'λ' at column 3"},
		{"\xff", "invalid UTF-8 byte 0xff at column 1"},
		{"foo(1)", "unknown name 'foo' (known: " + knownNames + ") at column 1"},
		{"x", "unknown name 'x' (known: " + knownNames + ") at column 1"},
		{"sqrt 4", "function 'sqrt' needs its arguments in parentheses, like sqrt(2) at column 1"},
		{"pi(2)", "'pi' is a constant, not a function at column 1"},
		{"sqrt(1, 2)", "sqrt takes 1 argument(s), got 2 at column 1"},
		{"sqrt()", "sqrt takes 1 argument(s), got 0 at column 1"},
		{"min()", "min takes at least 1 argument at column 1"},
		{"min(1,)", "unexpected ')' at column 7"},
		{"min(1 2)", "unexpected '2' at column 7"},
		{"sqrt(-1)", "square root of a negative number at column 1"},
		{"ln(0)", "logarithm of a number that is not positive at column 1"},
		{"2 * log10(-5)", "logarithm of a number that is not positive at column 5"},
		{"10^400", "power is too large at column 3"},
		{"(-8)^(1/3)", "power is not a real number at column 5"},
		{"1e308*10", "product is too large at column 6"},
		{"1e999", "number '1e999' is out of range at column 1"},
		{"-1e308-1e308", "difference is too large at column 7"},
		{strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), "expression nests deeper than 256 levels at column 257"},
		{strings.Repeat("-", 300) + "1", "expression nests deeper than 256 levels at column 257"},
		{strings.Repeat("2^", 300) + "1", "expression nests deeper than 256 levels at column 513"},
		{strings.Repeat("1+", 2048) + "1", "expression is 4097 bytes long; the limit is 4096"},
	}
	for _, tt := range tests {
		name := tt.expr
		if len(name) > 20 {
			name = name[:20]
		}
		t.Run(name, func(t *testing.T) {
			v, err := Eval(tt.expr)
			if err == nil {
				t.Fatalf("Eval(%q) = %v; want error %q", tt.expr, v, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Eval error = %q\nwant          %q", err, tt.want)
			}
			var ee *EvalError
			if !errors.As(err, &ee) {
				t.Errorf("error is %T; want *EvalError", err)
			}
		})
	}
}

func TestEvalAcceptsLimits(t *testing.T) {
	deep := strings.Repeat("(", 255) + "1" + strings.Repeat(")", 255)
	if v, err := Eval(deep); err != nil || v != 1 {
		t.Errorf("255 levels: %v, %v", v, err)
	}
	long := strings.Repeat("1+", 2047) + "1" // 4095 bytes
	if v, err := Eval(long); err != nil || v != 2048 {
		t.Errorf("4095 bytes: %v, %v", v, err)
	}
}

func TestFormatNumber(t *testing.T) {
	for v, want := range map[float64]string{
		3:                  "3",
		-42:                "-42",
		0.1 + 0.2:          "0.3",
		1.0 / 3:            "0.333333333333333",
		9007199254740991:   "9007199254740991",
		1e21:               "1e+21",
		2.5e-7:             "2.5e-07",
		math.Pi:            "3.14159265358979",
		-0.000001234567891: "-1.234567891e-06",
	} {
		if got := FormatNumber(v); got != want {
			t.Errorf("FormatNumber(%v) = %q; want %q", v, got, want)
		}
	}
}

// FuzzCalculator checks that Eval never panics, returns only finite
// numbers, and reports errors as *EvalError with a column inside the
// expression.
func FuzzCalculator(f *testing.F) {
	for _, seed := range []string{"1+2*3", "2^3^2", "sqrt(16)-min(1,2,3)", "(((1)))", "1e308*10", "-(-(-1))",
		"1/0", "ln(-1)", "max(", "2**-0.5", "λ", "\xff\xfe", "1 % 0.0", ".5e-3", "pi*e^2", "5e", strings.Repeat("(", 300)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		v, err := Eval(expr)
		if err != nil {
			var ee *EvalError
			if !errors.As(err, &ee) {
				t.Fatalf("Eval(%q) error %T: %v", expr, err, err)
			}
			if cols := utf8.RuneCountInString(expr) + 1; ee.Column < 0 || ee.Column > cols {
				t.Fatalf("Eval(%q) column %d outside 0..%d", expr, ee.Column, cols)
			}
			return
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("Eval(%q) = %v; want a finite number or an error", expr, v)
		}
	})
}

func BenchmarkEval(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Eval("sqrt(16) + 2^10 * (3.5 - 1) / max(1, 2, 3) % 7"); err != nil {
			b.Fatal(err)
		}
	}
}
