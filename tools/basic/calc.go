package basic

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits that keep hostile expressions cheap: parsing is linear in the
// length and recursion is bounded by the depth.
const (
	// MaxExprLen is the longest expression Eval accepts, in bytes.
	MaxExprLen = 4 << 10
	// MaxDepth is the deepest nesting of parentheses, signs, powers and
	// function calls Eval accepts.
	MaxDepth = 256
)

// EvalError is a calculator error. Column is the 1-based character
// position the problem was found at, or 0 when it concerns the whole
// expression.
type EvalError struct {
	Column int
	Msg    string
}

// Error returns e.g. "unexpected ')' at column 7".
func (e *EvalError) Error() string {
	if e.Column == 0 {
		return e.Msg
	}
	return fmt.Sprintf("%s at column %d", e.Msg, e.Column)
}

// Eval evaluates an arithmetic expression: + - * / % and ^ (or **) for
// power, unary signs, parentheses, decimal and scientific numbers, the
// constants pi and e and the functions sqrt, abs, round, floor, ceil, min,
// max, ln, log10, sin, cos and tan (radians). Power binds tighter than a
// sign (-2^2 is -4) and is right-associative (2^3^2 is 512). Names are
// case-insensitive. Every error is an *EvalError; a result that is not a
// finite number (overflow, 0/0) is an error too.
func Eval(expr string) (float64, error) {
	if len(expr) > MaxExprLen {
		return 0, &EvalError{Msg: fmt.Sprintf("expression is %d bytes long; the limit is %d", len(expr), MaxExprLen)}
	}
	if strings.TrimSpace(expr) == "" {
		return 0, &EvalError{Msg: "empty expression; write one like 2*(3+4)"}
	}
	p := &parser{src: expr}
	if err := p.next(); err != nil {
		return 0, err
	}
	v, err := p.expr()
	if err != nil {
		return 0, err
	}
	if p.tok.kind != tokEOF {
		return 0, p.unexpected()
	}
	if v == 0 {
		v = 0 // normalise -0
	}
	return v, nil
}

// FormatNumber renders a result for the model: integers exactly when they
// are exactly representable, other numbers to 15 significant digits so
// that 0.1+0.2 reads 0.3.
func FormatNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 15, 64)
}

type tokKind uint8

const (
	tokEOF tokKind = iota
	tokNum
	tokIdent
	tokOp // + - * / % ^ ( ) , and ** (stored as ^)
)

type token struct {
	kind tokKind
	pos  int // byte offset
	text string
	num  float64
	op   byte
}

type parser struct {
	src   string
	pos   int
	depth int
	tok   token
}

// column converts a byte offset to a 1-based character column.
func (p *parser) column(pos int) int { return utf8.RuneCountInString(p.src[:pos]) + 1 }

func (p *parser) errAt(pos int, format string, args ...any) *EvalError {
	return &EvalError{Column: p.column(pos), Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) unexpected() error {
	if p.tok.kind == tokEOF {
		return p.errAt(p.tok.pos, "unexpected end of expression")
	}
	return p.errAt(p.tok.pos, "unexpected %s", quoteToken(p.tok.text))
}

func quoteToken(s string) string {
	if len(s) > 24 {
		s = s[:24] + "…"
	}
	if !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	return strconv.Quote(s)
}

// next scans the next token into p.tok.
func (p *parser) next() error {
	for p.pos < len(p.src) && isSpace(p.src[p.pos]) {
		p.pos++
	}
	start := p.pos
	if start == len(p.src) {
		p.tok = token{kind: tokEOF, pos: start}
		return nil
	}
	c := p.src[start]
	switch {
	case isDigit(c) || c == '.':
		return p.scanNumber(start)
	case isIdentStart(c):
		for p.pos < len(p.src) && isIdentPart(p.src[p.pos]) {
			p.pos++
		}
		p.tok = token{kind: tokIdent, pos: start, text: p.src[start:p.pos]}
		return nil
	case c == '*' && start+1 < len(p.src) && p.src[start+1] == '*':
		p.pos += 2
		p.tok = token{kind: tokOp, pos: start, text: "**", op: '^'}
		return nil
	case strings.IndexByte("+-*/%^(),", c) >= 0:
		p.pos++
		p.tok = token{kind: tokOp, pos: start, text: p.src[start:p.pos], op: c}
		return nil
	}
	r, size := utf8.DecodeRuneInString(p.src[start:])
	if r == utf8.RuneError && size <= 1 {
		return p.errAt(start, "invalid UTF-8 byte 0x%02x", c)
	}
	return p.errAt(start, "unexpected %s", quoteToken(string(r)))
}

func (p *parser) scanNumber(start int) error {
	i := start
	for i < len(p.src) && isDigit(p.src[i]) {
		i++
	}
	if i < len(p.src) && p.src[i] == '.' {
		i++
		for i < len(p.src) && isDigit(p.src[i]) {
			i++
		}
	}
	if i == start+1 && p.src[start] == '.' {
		return p.errAt(start, "unexpected '.'")
	}
	// An exponent only when digits follow, so "2e" is 2 then the name e.
	if i < len(p.src) && (p.src[i] == 'e' || p.src[i] == 'E') {
		j := i + 1
		if j < len(p.src) && (p.src[j] == '+' || p.src[j] == '-') {
			j++
		}
		if j < len(p.src) && isDigit(p.src[j]) {
			for j < len(p.src) && isDigit(p.src[j]) {
				j++
			}
			i = j
		}
	}
	lit := p.src[start:i]
	v, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) && !math.IsInf(v, 0) {
			v = 0 // underflow to zero is harmless
		} else {
			return p.errAt(start, "number %s is out of range", quoteToken(lit))
		}
	}
	p.pos = i
	p.tok = token{kind: tokNum, pos: start, text: lit, num: v}
	return nil
}

func isSpace(c byte) bool      { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isIdentStart(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
func isIdentPart(c byte) bool  { return isIdentStart(c) || isDigit(c) }

// isOp reports whether the current token is the operator op.
func (p *parser) isOp(op byte) bool { return p.tok.kind == tokOp && p.tok.op == op }

// expr = term { ("+" | "-") term }
func (p *parser) expr() (float64, error) {
	v, err := p.term()
	for err == nil && (p.isOp('+') || p.isOp('-')) {
		op, pos := p.tok.op, p.tok.pos
		if err = p.next(); err != nil {
			break
		}
		var r float64
		if r, err = p.term(); err != nil {
			break
		}
		if op == '+' {
			v, err = p.finite(v+r, pos, "sum")
		} else {
			v, err = p.finite(v-r, pos, "difference")
		}
	}
	return v, err
}

// term = unary { ("*" | "/" | "%") unary }
func (p *parser) term() (float64, error) {
	v, err := p.unary()
	for err == nil && (p.isOp('*') || p.isOp('/') || p.isOp('%')) {
		op, pos := p.tok.op, p.tok.pos
		if err = p.next(); err != nil {
			break
		}
		var r float64
		if r, err = p.unary(); err != nil {
			break
		}
		switch op {
		case '*':
			v, err = p.finite(v*r, pos, "product")
		case '/':
			if r == 0 {
				return 0, p.errAt(pos, "division by zero")
			}
			v, err = p.finite(v/r, pos, "quotient")
		case '%':
			if r == 0 {
				return 0, p.errAt(pos, "modulo by zero")
			}
			v, err = p.finite(math.Mod(v, r), pos, "remainder")
		}
	}
	return v, err
}

// unary = ("+" | "-") unary | power. Every nesting path passes through
// here, so this is where the depth limit is enforced.
func (p *parser) unary() (float64, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > MaxDepth {
		return 0, p.errAt(p.tok.pos, "expression nests deeper than %d levels", MaxDepth)
	}
	if p.isOp('+') || p.isOp('-') {
		neg := p.tok.op == '-'
		if err := p.next(); err != nil {
			return 0, err
		}
		v, err := p.unary()
		if neg {
			v = -v
		}
		return v, err
	}
	return p.power()
}

// power = primary [ ("^" | "**") unary ], right-associative.
func (p *parser) power() (float64, error) {
	base, err := p.primary()
	if err != nil || !p.isOp('^') {
		return base, err
	}
	pos := p.tok.pos
	if err := p.next(); err != nil {
		return 0, err
	}
	exp, err := p.unary()
	if err != nil {
		return 0, err
	}
	if base == 0 && exp < 0 {
		return 0, p.errAt(pos, "zero to a negative power (division by zero)")
	}
	return p.finite(math.Pow(base, exp), pos, "power")
}

// primary = number | "(" expr ")" | name [ "(" args ")" ]
func (p *parser) primary() (float64, error) {
	switch {
	case p.tok.kind == tokNum:
		v := p.tok.num
		return v, p.next()
	case p.isOp('('):
		open := p.tok.pos
		if err := p.next(); err != nil {
			return 0, err
		}
		v, err := p.expr()
		if err != nil {
			return 0, err
		}
		if !p.isOp(')') {
			if p.tok.kind == tokEOF {
				return 0, p.errAt(open, "unclosed '('")
			}
			return 0, p.unexpected()
		}
		return v, p.next()
	case p.tok.kind == tokIdent:
		return p.name()
	}
	return 0, p.unexpected()
}

// finite rejects results that are not finite numbers.
func (p *parser) finite(v float64, pos int, what string) (float64, error) {
	switch {
	case math.IsNaN(v):
		return 0, p.errAt(pos, "%s is not a real number", what)
	case math.IsInf(v, 0):
		return 0, p.errAt(pos, "%s is too large", what)
	}
	return v, nil
}
