// Command lincheck checks that a recorded history of client operations is linearizable against a
// sequential model of the coupon and wallet contract (docs/reliability.md, "Linearizability").
//
// It reads one JSON history on stdin (test/chaos/support/history.ts writes it from a chaos run):
//
//	{"coupon": {"limit": 20, "ops": [{"kind": "redeem", "key": "order-7", "call": 12, "ret": 40, "outcome": "ok"}, …]},
//	 "wallets": {"c01": [{"kind": "credit", "points": 125, "call": 3, "ret": 9, "outcome": "ok", "before": 0, "after": 125}, …]}}
//
// Times are the client's invocation and completion instants (any monotonic unit); an operation
// whose outcome the client never learned has `outcome` "unknown": it may have taken effect at any
// moment after its call, or never — until its `ret` if given (an instant by which everything in
// flight had settled), else until the end. Points are integer hundredths. The coupon is one
// partition (its limit is shared by every order); each customer's wallet is its own partition. It
// prints a JSON verdict per partition and exits 0 when every one is linearizable, 1 when one is
// not (an answer no correct service could have given), 2 when the checker could not decide in
// time or the input is malformed.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// Op is one client operation of the history.
type Op struct {
	Client  int    `json:"client"`
	Kind    string `json:"kind"` // redeem, revert, credit, debit
	Key     string `json:"key"`  // the order id (redeem, revert)
	Points  int64  `json:"points"`
	Call    int64  `json:"call"`
	Ret     *int64 `json:"ret"`
	Outcome string `json:"outcome"` // ok, refused, unknown
	// What a wallet operation answered (ok only): the balance before and after it.
	Before *int64 `json:"before"`
	After  *int64 `json:"after"`
}

// History is the input document.
type History struct {
	Coupon *struct {
		Limit int  `json:"limit"`
		Ops   []Op `json:"ops"`
	} `json:"coupon"`
	Wallets map[string][]Op `json:"wallets"`
}

type output struct {
	outcome string
	before  *int64
	after   *int64
}

func operations(ops []Op) []porcupine.Operation {
	out := make([]porcupine.Operation, 0, len(ops))
	for _, op := range ops {
		// An unknown outcome's `ret`, when given, is an instant by which it had taken effect or never
		// would (the queues drained); without one it stays open to the end of the history.
		ret := int64(math.MaxInt64)
		if op.Ret != nil {
			ret = *op.Ret
		}
		out = append(out, porcupine.Operation{
			ClientId: op.Client,
			Input:    op,
			Call:     op.Call,
			Output:   output{outcome: op.Outcome, before: op.Before, after: op.After},
			Return:   ret,
		})
	}
	return out
}

// couponState is what the coupon's partition needs of the orders redeemed now (not reverted): how
// many places they take (what the limit counts), and which ones of the orders that more than one
// operation of the history touches (a repeat, a revert). An order only one operation touches is
// never asked about again, so it is counted, not named: states that differ only in which of those
// took a place are one state, and the search stays polynomial in them where a set of every order
// made it exponential in the operations pending at once (a worker kill leaves 24 clients pending
// together). Exact: for such an order the set's answer to "is it redeemed?" was always no.
type couponState struct {
	taken int
	keys  string // the tracked orders redeemed now, sorted, one per line
}

func members(s couponState) []string {
	if s.keys == "" {
		return nil
	}
	return strings.Split(s.keys, "\n")
}

func with(s couponState, key string, tracked bool) couponState {
	if !tracked {
		return couponState{taken: s.taken + 1, keys: s.keys}
	}
	m := append(members(s), key)
	sort.Strings(m)
	return couponState{taken: s.taken + 1, keys: strings.Join(m, "\n")}
}

func without(s couponState, key string, tracked bool) couponState {
	if !tracked {
		return couponState{taken: s.taken - 1, keys: s.keys}
	}
	var m []string
	for _, k := range members(s) {
		if k != key {
			m = append(m, k)
		}
	}
	return couponState{taken: s.taken - 1, keys: strings.Join(m, "\n")}
}

func has(s couponState, key string, tracked bool) bool {
	if !tracked {
		return false // no other operation of the history touched this order: it is not redeemed
	}
	for _, k := range members(s) {
		if k == key {
			return true
		}
	}
	return false
}

// trackedKeys: the orders more than one operation of the history touches.
func trackedKeys(ops []Op) map[string]bool {
	seen := map[string]int{}
	for _, op := range ops {
		seen[op.Key]++
	}
	tracked := map[string]bool{}
	for k, n := range seen {
		if n > 1 {
			tracked[k] = true
		}
	}
	return tracked
}

// withoutDominatedRefusals drops each refused redeem of an order no other operation touches whose
// interval holds another such refusal's interval (of equal intervals, all but the first). Exact: such
// a refusal changes nothing and says only "the limit was reached", so placed at the moment the one
// inside its interval is (which is within its own interval too), it is legal there whenever that one
// is; a history is linearizable with it exactly when without it. A database or worker outage leaves
// most refusals spanning the whole outage (each retried to its answer): a chaos run's 133 refusals
// were 12 once the dominated ones were dropped, and every one the search keeps multiplies its work.
func withoutDominatedRefusals(ops []Op, tracked map[string]bool) []Op {
	end := func(op Op) int64 {
		if op.Ret == nil {
			return math.MaxInt64
		}
		return *op.Ret
	}
	refusal := func(op Op) bool { return op.Kind == "redeem" && op.Outcome == "refused" && !tracked[op.Key] }
	var refusals []int
	for i, op := range ops {
		if refusal(op) {
			refusals = append(refusals, i)
		}
	}
	dropped := map[int]bool{}
	for _, i := range refusals {
		a := ops[i]
		for _, j := range refusals {
			if j == i || dropped[j] {
				continue
			}
			b := ops[j]
			inside := a.Call <= b.Call && end(b) <= end(a)
			same := a.Call == b.Call && end(a) == end(b)
			if inside && (!same || j < i) {
				dropped[i] = true
				break
			}
		}
	}
	out := make([]Op, 0, len(ops)-len(dropped))
	for i, op := range ops {
		if !dropped[i] {
			out = append(out, op)
		}
	}
	return out
}

// couponModel: a redeem of an order not redeemed takes a place when fewer than `limit` are taken
// (and answers ok), else is refused; a redeem of an order redeemed already answers ok and changes
// nothing (docs/decisions.md#17); a revert of a redeemed order frees its place, of another is
// refused. An operation whose outcome is unknown either took effect (when it could) or did not:
// both next states are kept (a nondeterministic model).
func couponModel(limit int, tracked map[string]bool) porcupine.Model {
	m := porcupine.NondeterministicModel{
		Init: func() []interface{} { return []interface{}{couponState{}} },
		Step: func(state, input, out interface{}) []interface{} {
			s := state.(couponState)
			op := input.(Op)
			o := out.(output)
			t := tracked[op.Key]
			allow := func(ok bool, next couponState) []interface{} {
				if ok {
					return []interface{}{next}
				}
				return nil
			}
			switch op.Kind {
			case "redeem":
				if has(s, op.Key, t) {
					return allow(o.outcome != "refused", s)
				}
				fits := s.taken < limit
				switch o.outcome {
				case "ok":
					return allow(fits, with(s, op.Key, t))
				case "refused":
					return allow(!fits, s)
				}
				if fits {
					return []interface{}{s, with(s, op.Key, t)}
				}
				return []interface{}{s}
			case "revert":
				switch o.outcome {
				case "refused":
					return allow(!has(s, op.Key, t), s)
				case "ok":
					return allow(has(s, op.Key, t), without(s, op.Key, t))
				}
				if has(s, op.Key, t) {
					return []interface{}{s, without(s, op.Key, t)}
				}
				return []interface{}{s}
			}
			return nil
		},
		Equal:             func(a, b interface{}) bool { return a.(couponState) == b.(couponState) },
		DescribeOperation: describe,
	}
	return m.ToModel()
}

// walletModel: a credit adds its points; a debit takes them when the balance has them, else is
// refused; an ok answer's balances must be the balance before and after the operation.
func walletModel() porcupine.Model {
	return porcupine.Model{
		Init: func() interface{} { return int64(0) },
		Step: func(state, input, out interface{}) (bool, interface{}) {
			b := state.(int64)
			op := input.(Op)
			o := out.(output)
			next := b + op.Points
			if op.Kind == "debit" {
				next = b - op.Points
			}
			answered := func() bool {
				return (o.before == nil || *o.before == b) && (o.after == nil || *o.after == next)
			}
			switch {
			case op.Kind == "credit" && o.outcome == "ok":
				return answered(), next
			case op.Kind == "debit" && o.outcome == "ok":
				return b >= op.Points && answered(), next
			case op.Kind == "debit" && o.outcome == "refused":
				return b < op.Points, b
			}
			return false, b // an unknown outcome has two next states: walletNondeterministic
		},
		Equal:             func(a, b interface{}) bool { return a.(int64) == b.(int64) },
		DescribeOperation: describe,
	}
}

// walletNondeterministic is walletModel with both branches of an unknown outcome.
func walletNondeterministic() porcupine.Model {
	det := walletModel()
	m := porcupine.NondeterministicModel{
		Init: func() []interface{} { return []interface{}{int64(0)} },
		Step: func(state, input, out interface{}) []interface{} {
			op := input.(Op)
			o := out.(output)
			b := state.(int64)
			if o.outcome == "unknown" {
				states := []interface{}{b}
				if op.Kind == "credit" {
					states = append(states, b+op.Points)
				} else if b >= op.Points {
					states = append(states, b-op.Points)
				}
				return states
			}
			if ok, next := det.Step(state, input, out); ok {
				return []interface{}{next}
			}
			return nil
		},
		Equal:             det.Equal,
		DescribeOperation: describe,
	}
	return m.ToModel()
}

func describe(input, out interface{}) string {
	op := input.(Op)
	o := out.(output)
	if op.Kind == "credit" || op.Kind == "debit" {
		return fmt.Sprintf("%s(%d) -> %s", op.Kind, op.Points, o.outcome)
	}
	return fmt.Sprintf("%s(%s) -> %s", op.Kind, op.Key, o.outcome)
}

func verdict(r porcupine.CheckResult) string {
	switch r {
	case porcupine.Ok:
		return "ok"
	case porcupine.Illegal:
		return "illegal"
	}
	return "unknown"
}

func main() {
	var h History
	if err := json.NewDecoder(os.Stdin).Decode(&h); err != nil {
		fmt.Fprintln(os.Stderr, "lincheck: reading the history:", err)
		os.Exit(2)
	}
	// The time each partition may take to be decided: 60 s, or the seconds given as the first
	// argument (a test gives what its own scenario took on this machine, times its margin).
	timeout := 60 * time.Second
	if len(os.Args) > 1 {
		if secs, err := strconv.Atoi(os.Args[1]); err == nil && secs > 0 {
			timeout = time.Duration(secs) * time.Second
		}
	}
	result := map[string]string{}
	worst := 0
	record := func(name string, r porcupine.CheckResult) {
		result[name] = verdict(r)
		if r == porcupine.Illegal {
			worst = 1
		} else if r != porcupine.Ok && worst == 0 {
			worst = 2
		}
	}
	if h.Coupon != nil {
		tracked := trackedKeys(h.Coupon.Ops)
		ops := withoutDominatedRefusals(h.Coupon.Ops, tracked)
		record("coupon", porcupine.CheckOperationsTimeout(couponModel(h.Coupon.Limit, tracked), operations(ops), timeout))
	}
	names := make([]string, 0, len(h.Wallets))
	for name := range h.Wallets {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		record("wallet:"+name, porcupine.CheckOperationsTimeout(walletNondeterministic(), operations(h.Wallets[name]), timeout))
	}
	_ = json.NewEncoder(os.Stdout).Encode(map[string]interface{}{"linearizable": worst == 0, "partitions": result})
	os.Exit(worst)
}
