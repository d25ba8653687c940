package records

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// CheckT4 checks a T4 results file (what Export writes in format T4)
// against the T4 results schema 1.0.0
// (Kernel Tuner's kernel_tuner/schema/T4/1.0.0/results-schema.json),
// rule by rule: schema_version is a string of the form major.minor.patch;
// results is an array of objects, each requiring configuration (object),
// times (object), invalidity (one of the enum) and correctness (number);
// optional timestamp (string), objectives (array), measurements (array of
// objects whose name is a string, value a number, string or array, unit a
// string); in times, compilation_time, framework, search_algorithm and
// validation are numbers and runtimes an array. It also checks the T4
// metadata schema's types where the file has a metadata member.
func CheckT4(data []byte) error {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("records: not T4: %w", err)
	}
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	is := func(v any, types ...string) bool {
		for _, typ := range types {
			switch v.(type) {
			case string:
				if typ == "string" {
					return true
				}
			case float64:
				if typ == "number" {
					return true
				}
			case []any:
				if typ == "array" {
					return true
				}
			case map[string]any:
				if typ == "object" {
					return true
				}
			}
		}
		return false
	}
	if v, ok := doc["schema_version"].(string); !ok || !regexp.MustCompile(`^[0-9]{1,}.[0-9]{1,}.[0-9]{1,}$`).MatchString(v) {
		bad("schema_version %v is not major.minor.patch", doc["schema_version"])
	}
	results, ok := doc["results"].([]any)
	if !ok {
		bad("results is not an array")
	}
	invalidity := []string{"timeout", "compile", "runtime", "correctness", "constraints", "correct"}
	for i, r := range results {
		res, ok := r.(map[string]any)
		if !ok {
			bad("result %d is not an object", i)
			continue
		}
		for field, typ := range map[string]string{"configuration": "object", "times": "object", "correctness": "number"} {
			if v, ok := res[field]; !ok || !is(v, typ) {
				bad("result %d: required %s is missing or not a %s: %v", i, field, typ, v)
			}
		}
		if v, ok := res["invalidity"].(string); !ok || !slices.Contains(invalidity, v) {
			bad("result %d: required invalidity %v is not one of %v", i, res["invalidity"], invalidity)
		}
		for field, typ := range map[string]string{"timestamp": "string", "objectives": "array", "measurements": "array"} {
			if v, ok := res[field]; ok && !is(v, typ) {
				bad("result %d: %s is not a %s", i, field, typ)
			}
		}
		times, _ := res["times"].(map[string]any)
		for field, typ := range map[string]string{"compilation_time": "number", "runtimes": "array", "framework": "number", "search_algorithm": "number", "validation": "number"} {
			if v, ok := times[field]; ok && !is(v, typ) {
				bad("result %d: times.%s is not a %s", i, field, typ)
			}
		}
		ms, _ := res["measurements"].([]any)
		for j, m := range ms {
			mm, ok := m.(map[string]any)
			if !ok || (mm["name"] != nil && !is(mm["name"], "string")) || (mm["value"] != nil && !is(mm["value"], "number", "string", "array")) || (mm["unit"] != nil && !is(mm["unit"], "string")) {
				bad("result %d: measurement %d is not {name string, value number, unit string}: %v", i, j, m)
			}
		}
	}
	if md, ok := doc["metadata"]; ok {
		m, ok := md.(map[string]any)
		if !ok {
			bad("metadata is not an object")
		}
		if hw, ok := m["hardware"].(map[string]any); ok {
			if v, ok := hw["hardware_description"]; ok && !is(v, "array") {
				bad("metadata.hardware.hardware_description is not an array")
			}
			if v, ok := hw["operating_system"]; ok && !is(v, "string") {
				bad("metadata.hardware.operating_system is not a string")
			}
		}
		if env, ok := m["environment"].(map[string]any); ok {
			if v, ok := env["device_query"]; ok && !is(v, "object") {
				bad("metadata.environment.device_query is not an object")
			}
			if v, ok := env["requirements"]; ok && !is(v, "array") {
				bad("metadata.environment.requirements is not an array")
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("records: not T4 1.0.0:\n%s", strings.Join(errs, "\n"))
	}
	return nil
}
