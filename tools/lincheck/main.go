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
	// Its place in its chain of interchangeable operations (chains), -1 when in none.
	chain, index int
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

// end: when an operation had returned; an unknown outcome without a `ret` stays open to the end.
func end(op Op) int64 {
	if op.Ret == nil {
		return math.MaxInt64
	}
	return *op.Ret
}

func operations(ops []Op) []porcupine.Operation {
	out := make([]porcupine.Operation, 0, len(ops))
	for _, op := range ops {
		// An unknown outcome's `ret`, when given, is an instant by which it had taken effect or never
		// would (the queues drained); without one it stays open to the end of the history.
		ret := end(op)
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
	done  string // per chain, how many of its operations are linearized (two bytes each)
}

func members(s couponState) []string {
	if s.keys == "" {
		return nil
	}
	return strings.Split(s.keys, "\n")
}

func with(s couponState, key string, tracked bool) couponState {
	if !tracked {
		return couponState{taken: s.taken + 1, keys: s.keys, done: s.done}
	}
	m := append(members(s), key)
	sort.Strings(m)
	return couponState{taken: s.taken + 1, keys: strings.Join(m, "\n"), done: s.done}
}

func without(s couponState, key string, tracked bool) couponState {
	if !tracked {
		return couponState{taken: s.taken - 1, keys: s.keys, done: s.done}
	}
	var m []string
	for _, k := range members(s) {
		if k != key {
			m = append(m, k)
		}
	}
	return couponState{taken: s.taken - 1, keys: strings.Join(m, "\n"), done: s.done}
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

// pairedKeys: the orders touched by exactly two operations, a redeem answered 200 and a revert sent
// after that answer came (the chaos client reverts only acknowledged redeems). Exact to count them
// rather than name them: the redeem precedes the revert in every linearization and nothing else asks
// about the order, so the revert always finds it redeemed — the model answers it so without naming it.
func pairedKeys(ops []Op) map[string]bool {
	byKey := map[string][]Op{}
	for _, op := range ops {
		byKey[op.Key] = append(byKey[op.Key], op)
	}
	paired := map[string]bool{}
	for key, two := range byKey {
		if len(two) != 2 {
			continue
		}
		redeem, revert := two[0], two[1]
		if redeem.Kind == "revert" {
			redeem, revert = revert, redeem
		}
		if redeem.Kind == "redeem" && redeem.Outcome == "ok" && revert.Kind == "revert" && redeem.Ret != nil && *redeem.Ret < revert.Call {
			paired[key] = true
		}
	}
	return paired
}

// chains puts the operations the model cannot tell apart — of orders it does not name, the same kind
// with the same outcome — into chains that must be linearized in their order, and returns how many
// chains there are. Exact: for two such operations a and b where everything that precedes a in real
// time precedes b, and everything b precedes a precedes too, a linearization that places b before a
// stays legal with the two swapped (the model steps the same, real time still holds), so one that
// places a first exists whenever any does; swapping every such inverted pair ends, so all of them can
// be ordered at once. Without it the search tries every subset of a burst's identical operations
// (a database frozen for 12 s leaves 60 pending at once, in any order porcupine may try); with it,
// their order — and with it the number of states — is fixed.
func chains(ops []Op, untracked func(Op) bool) int {
	calls := make([]int64, len(ops))
	ends := make([]int64, len(ops))
	for i, op := range ops {
		calls[i], ends[i] = op.Call, end(op)
	}
	sort.Slice(calls, func(i, j int) bool { return calls[i] < calls[j] })
	sort.Slice(ends, func(i, j int) bool { return ends[i] < ends[j] })
	// before: how many operations returned before it was called (its real-time predecessors, a set
	// that only grows with the call); after: how many were called after it returned (its successors).
	before := func(op Op) int { return sort.Search(len(ends), func(i int) bool { return ends[i] >= op.Call }) }
	after := func(op Op) int {
		e := end(op)
		return len(calls) - sort.Search(len(calls), func(i int) bool { return calls[i] > e })
	}
	classes := map[string][]int{}
	for i := range ops {
		ops[i].chain = -1
		if untracked(ops[i]) {
			class := ops[i].Kind + "/" + ops[i].Outcome
			classes[class] = append(classes[class], i)
		}
	}
	names := make([]string, 0, len(classes))
	for name := range classes {
		names = append(names, name)
	}
	sort.Strings(names)
	n := 0
	for _, name := range names {
		members := classes[name]
		type key struct{ before, after int }
		keys := map[int]key{}
		for _, i := range members {
			keys[i] = key{before(ops[i]), after(ops[i])}
		}
		// a may go first when before(a) <= before(b) and after(a) >= after(b): sorted so, each joins the
		// chain whose last operation's `after` is the smallest still >= its own.
		sort.SliceStable(members, func(x, y int) bool {
			a, b := keys[members[x]], keys[members[y]]
			if a.before != b.before {
				return a.before < b.before
			}
			return a.after > b.after
		})
		var lastAfter, size []int // per chain of this class
		first := n
		for _, i := range members {
			best := -1
			for c, la := range lastAfter {
				if la >= keys[i].after && (best < 0 || la < lastAfter[best]) {
					best = c
				}
			}
			if best < 0 {
				lastAfter, size = append(lastAfter, 0), append(size, 0)
				best = len(lastAfter) - 1
				n++
			}
			lastAfter[best] = keys[i].after
			ops[i].chain, ops[i].index = first+best, size[best]
			size[best]++
		}
	}
	return n
}

// couponModel: a redeem of an order not redeemed takes a place when fewer than `limit` are taken
// (and answers ok), else is refused; a redeem of an order redeemed already answers ok and changes
// nothing (docs/decisions.md#17); a revert of a redeemed order frees its place, of another is
// refused. An operation whose outcome is unknown either took effect (when it could) or did not:
// both next states are kept (a nondeterministic model).
func couponModel(limit int, tracked, paired map[string]bool, chains int) porcupine.Model {
	step := func(s couponState, op Op, o output) []interface{} {
		t := tracked[op.Key]
		// A paired order's revert always finds it redeemed: its one redeem answered 200 before the revert was sent.
		present := (op.Kind == "revert" && paired[op.Key]) || has(s, op.Key, t)
		allow := func(ok bool, next couponState) []interface{} {
			if ok {
				return []interface{}{next}
			}
			return nil
		}
		switch op.Kind {
		case "redeem":
			if present {
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
				return allow(!present, s)
			case "ok":
				return allow(present, without(s, op.Key, t))
			}
			if present {
				return []interface{}{s, without(s, op.Key, t)}
			}
			return []interface{}{s}
		}
		return nil
	}
	m := porcupine.NondeterministicModel{
		Init: func() []interface{} { return []interface{}{couponState{done: strings.Repeat("\x00\x00", chains)}} },
		Step: func(state, input, out interface{}) []interface{} {
			s := state.(couponState)
			op := input.(Op)
			if op.chain < 0 {
				return step(s, op, out.(output))
			}
			// An operation of a chain only in its turn; every state it leads to counts it as done.
			at := 2 * op.chain
			if int(s.done[at])<<8|int(s.done[at+1]) != op.index {
				return nil
			}
			next := step(s, op, out.(output))
			done := []byte(s.done)
			done[at], done[at+1] = byte((op.index+1)>>8), byte(op.index+1)
			for i, n := range next {
				c := n.(couponState)
				c.done = string(done)
				next[i] = c
			}
			return next
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
		paired := pairedKeys(h.Coupon.Ops)
		for key := range paired {
			delete(tracked, key)
		}
		ops := withoutDominatedRefusals(h.Coupon.Ops, tracked)
		n := chains(ops, func(op Op) bool { return !tracked[op.Key] && (op.Kind == "redeem" || paired[op.Key]) })
		record("coupon", porcupine.CheckOperationsTimeout(couponModel(h.Coupon.Limit, tracked, paired, n), operations(ops), timeout))
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
