package transport_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/reinharness/rein/model"
	"github.com/reinharness/rein/model/openai"
	"github.com/reinharness/rein/model/transport"
)

// A provider with a transport of its own: fewer retries, a tighter bound
// on a silent stream and on the whole request, and a breaker that opens
// after two failures in a row. Its errors are matched by what happened,
// not by their text.
func ExampleConfig() {
	p, err := openai.New(openai.Config{
		BaseURL: "http://127.0.0.1:8080",
		HTTP: transport.Config{
			MaxRetries:     1,
			IdleTimeout:    30 * time.Second,
			RequestTimeout: 5 * time.Minute,
			Breaker:        transport.NewBreaker(2, time.Minute),
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = p

	// What a stream that went quiet returns, wrapped as rein wraps it:
	err = fmt.Errorf("openai: reading the stream: %w", &model.TimeoutError{Setting: "model.idle_timeout", Limit: 30 * time.Second, Message: "no data for 30s", Err: transport.ErrIdleTimeout})
	var te *model.TimeoutError
	fmt.Println(errors.Is(err, transport.ErrIdleTimeout), errors.As(err, &te))
	// Output: true true
}
