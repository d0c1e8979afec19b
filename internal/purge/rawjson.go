package purge

import (
	"errors"

	"github.com/ctxkeep/ctxkeep/internal/rawjson"
)

// Transcript lines are edited as rawjson objects: changing one member
// re-encodes nothing else, so an edited line keeps every field the client
// wrote, known to ctxkeep or not, exactly.

var errNotObject = errors.New("not a JSON object")

// edit applies fn to the object in data and returns it re-encoded.
func edit(data []byte, fn func(rawjson.Object) (rawjson.Object, error)) ([]byte, error) {
	o, err := rawjson.ParseObject(data)
	if err != nil {
		return nil, err
	}
	if o, err = fn(o); err != nil {
		return nil, err
	}
	return o.Marshal(), nil
}
