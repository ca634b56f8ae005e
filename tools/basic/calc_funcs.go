package basic

import (
	"math"
	"strings"
)

var constants = map[string]float64{"pi": math.Pi, "e": math.E}

// function is a calculator function. arity is the exact argument count, or
// -1 for one or more. check, if set, rejects arguments outside the domain
// with a message.
type function struct {
	arity int
	fn    func(args []float64) float64
	check func(args []float64) string
}

func unaryFn(f func(float64) float64) func([]float64) float64 {
	return func(a []float64) float64 { return f(a[0]) }
}

var functions = map[string]function{
	"sqrt": {arity: 1, fn: unaryFn(math.Sqrt), check: func(a []float64) string {
		if a[0] < 0 {
			return "square root of a negative number"
		}
		return ""
	}},
	"abs":   {arity: 1, fn: unaryFn(math.Abs)},
	"round": {arity: 1, fn: unaryFn(math.Round)},
	"floor": {arity: 1, fn: unaryFn(math.Floor)},
	"ceil":  {arity: 1, fn: unaryFn(math.Ceil)},
	"ln":    {arity: 1, fn: unaryFn(math.Log), check: positive("logarithm")},
	"log10": {arity: 1, fn: unaryFn(math.Log10), check: positive("logarithm")},
	"sin":   {arity: 1, fn: unaryFn(math.Sin)},
	"cos":   {arity: 1, fn: unaryFn(math.Cos)},
	"tan":   {arity: 1, fn: unaryFn(math.Tan)},
	"min": {arity: -1, fn: func(a []float64) float64 {
		m := a[0]
		for _, x := range a[1:] {
			m = math.Min(m, x)
		}
		return m
	}},
	"max": {arity: -1, fn: func(a []float64) float64 {
		m := a[0]
		for _, x := range a[1:] {
			m = math.Max(m, x)
		}
		return m
	}},
}

func positive(what string) func([]float64) string {
	return func(a []float64) string {
		if a[0] <= 0 {
			return what + " of a number that is not positive"
		}
		return ""
	}
}

// knownNames is listed in "unknown name" errors so the model can correct
// itself.
const knownNames = "functions sqrt, abs, round, floor, ceil, min, max, ln, log10, sin, cos, tan; constants pi, e"

// name parses a constant or a function call; the current token is the
// identifier.
func (p *parser) name() (float64, error) {
	id, pos := strings.ToLower(p.tok.text), p.tok.pos
	if err := p.next(); err != nil {
		return 0, err
	}
	if c, ok := constants[id]; ok {
		if p.isOp('(') {
			return 0, p.errAt(pos, "%s is a constant, not a function", quoteToken(id))
		}
		return c, nil
	}
	f, ok := functions[id]
	if !ok {
		return 0, p.errAt(pos, "unknown name %s (known: %s)", quoteToken(id), knownNames)
	}
	if !p.isOp('(') {
		return 0, p.errAt(pos, "function %s needs its arguments in parentheses, like %s(2)", quoteToken(id), id)
	}
	open := p.tok.pos
	if err := p.next(); err != nil {
		return 0, err
	}
	args, err := p.args(open)
	if err != nil {
		return 0, err
	}
	switch {
	case f.arity >= 0 && len(args) != f.arity:
		return 0, p.errAt(pos, "%s takes %d argument(s), got %d", id, f.arity, len(args))
	case len(args) == 0:
		return 0, p.errAt(pos, "%s takes at least 1 argument", id)
	}
	if f.check != nil {
		if msg := f.check(args); msg != "" {
			return 0, p.errAt(pos, "%s", msg)
		}
	}
	return p.finite(f.fn(args), pos, id)
}

// args parses "expr {, expr} )" after an opening parenthesis at open. The
// number of arguments is bounded by the expression length.
func (p *parser) args(open int) ([]float64, error) {
	var args []float64
	if p.isOp(')') {
		return args, p.next()
	}
	for {
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, v)
		switch {
		case p.isOp(','):
			if err := p.next(); err != nil {
				return nil, err
			}
		case p.isOp(')'):
			return args, p.next()
		case p.tok.kind == tokEOF:
			return nil, p.errAt(open, "unclosed '('")
		default:
			return nil, p.unexpected()
		}
	}
}
