package claudecode

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/ctxkeep/ctxkeep/internal/rawjson"
)

// Env returns the "env" object of a settings file's content: the
// variables the client sets for itself, its hooks and its statusline.
// Values that are not strings are given as their JSON text.
func Env(settings []byte) (map[string]string, error) {
	doc, err := parseSettings(settings)
	if err != nil {
		return nil, err
	}
	raw := doc.top.Get("env")
	if raw == nil {
		return map[string]string{}, nil
	}
	obj, err := rawjson.ParseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: \"env\" is %v", ErrMalformed, err)
	}
	out := make(map[string]string, len(obj))
	for _, m := range obj {
		var s string
		if json.Unmarshal(m.Value, &s) != nil {
			s = string(m.Value)
		}
		out[m.Name] = s
	}
	return out, nil
}

// SetEnv sets one variable of the "env" object (creating the object when
// there is none); an empty value removes the variable, and the object
// when it is left empty. Every other key and variable is kept.
func SetEnv(settings []byte, name, value string) ([]byte, bool, error) {
	doc, err := parseSettings(settings)
	if err != nil {
		return nil, false, err
	}
	if doc.top.Count("env") > 1 {
		return nil, false, fmt.Errorf("%w: \"env\" appears more than once", ErrMalformed)
	}
	env := rawjson.Object{}
	if raw := doc.top.Get("env"); raw != nil {
		if env, err = rawjson.ParseObject(raw); err != nil {
			return nil, false, fmt.Errorf("%w: \"env\" is %v", ErrMalformed, err)
		}
	}
	i := env.Find(name)
	switch {
	case value == "" && i < 0:
		return settings, false, nil
	case value == "":
		env = slices.Delete(env, i, i+1)
	case i >= 0 && sameJSON(env[i].Value, rawjson.Encode(value)):
		return settings, false, nil
	case i >= 0:
		env[i].Value = rawjson.Encode(value)
	default:
		env = append(env, rawjson.NewMember(name, rawjson.Encode(value)))
	}
	if len(env) == 0 {
		return setMember(settings, doc.top, "env", nil)
	}
	return setMember(settings, doc.top, "env", env.Marshal())
}
