package mcp

import (
	"context"
	"fmt"
	"reflect"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// resultTypeMiddleware rejects a 2026-07-28 result that lacks resultType.
// In that revision every result says what it is ("complete",
// "input_required", "task"): a result without it may be an unfinished
// exchange read as a final answer, so it is an error naming the server.
// Older eras have no such member and stay lenient.
func resultTypeMiddleware(server string) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			// subscriptions/listen is the notification stream the SDK
			// opens on connect, not an answer rein reads: the stream's
			// closing result carries nothing, and real peers (the
			// TypeScript SDK v2 server, the go-sdk's stream as rein's
			// client sees it) end it without resultType.
			if err != nil || res == nil || method == "subscriptions/listen" {
				return res, err
			}
			if err := checkResultType(server, modernResult(req), res); err != nil {
				return nil, err
			}
			return res, nil
		}
	}
}

// modernResult reports whether a result was received in a session that
// negotiated the 2026-07-28 era. The server/discover answer comes before
// that is settled and is not judged: refusing it would only make the SDK
// fall back to initialize and hide the reason, while the first result of
// the session proper fails with the server named.
func modernResult(req sdk.Request) bool {
	cs, ok := req.GetSession().(*sdk.ClientSession)
	if !ok || cs == nil {
		return false
	}
	ir := cs.InitializeResult()
	return ir != nil && ir.ProtocolVersion >= ProtocolModern
}

// checkResultType fails a modern result whose resultType is absent. A
// tools/call answered with a task handle was rewritten by taskwire (its
// resultType kept inside the handle) and passes.
func checkResultType(server string, modern bool, res sdk.Result) error {
	if !modern {
		return nil
	}
	rt, known := resultTypeOf(res)
	if !known || rt != "" {
		return nil
	}
	if cr, ok := res.(*sdk.CallToolResult); ok && cr.Meta[metaCreatedTask] != nil {
		return nil
	}
	return fmt.Errorf("server %s sent a %s result without resultType, which that revision requires on every result (a non-conforming server: report it to its authors, or pin protocol_version = \"2025-11-25\" for it)", server, ProtocolModern)
}

// resultTypeOf reads the resultType the SDK decoded into res, and whether
// res is a type that carries one. The SDK keeps it in an exported field
// of an embedded struct for list results, and in an unexported field for
// tools/call, prompts/get and resources/read; reflection reads either
// without copying the result (TestResultTypeOfEveryResult pins this to
// the SDK's layout).
func resultTypeOf(res sdk.Result) (string, bool) {
	v := reflect.ValueOf(res)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return "", false
	}
	v = v.Elem()
	for _, name := range []string{"ResultType", "resultType"} {
		if f := v.FieldByName(name); f.IsValid() && f.Kind() == reflect.String {
			return f.String(), true
		}
	}
	return "", false
}
