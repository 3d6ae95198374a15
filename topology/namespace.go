package topology

import "fmt"

// MaxNamespace is the longest namespace: every topic and group name starts
// with it, and Kafka's names are at most 249 characters.
const MaxNamespace = 100

// NamespaceError says why a namespace is refused.
type NamespaceError struct {
	NS     string
	Reason string
}

func (e *NamespaceError) Error() string { return e.Reason }

// ValidNamespace checks a namespace: 1 to MaxNamespace letters, digits, -
// and _ — no dot, which separates a namespace from the rest of a name (a
// namespace "a.v1" would collide with namespace "a"'s internal topics).
func ValidNamespace(ns string) error {
	if ns == "" || len(ns) > MaxNamespace {
		return &NamespaceError{ns, fmt.Sprintf("namespace must be 1 to %d characters", MaxNamespace)}
	}
	for _, c := range ns {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return &NamespaceError{ns, fmt.Sprintf("namespace %q: use letters, digits, - and _", ns)}
		}
	}
	return nil
}
