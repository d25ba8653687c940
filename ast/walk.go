package ast

import "fmt"

// Inspect traverses the tree rooted at n in depth-first order, calling f for
// each node; if f returns false, Inspect skips that node's children.
// Nil children are not visited. Inspect panics on a node kind it does not
// know: a new node kind must be added here.
func Inspect(n Node, f func(Node) bool) {
	if n == nil || !f(n) {
		return
	}
	eachChild(n, inspector(f))
}

// inspector visits a child by inspecting it.
type inspector func(Node) bool

func (f inspector) visit(n Node) { Inspect(n, f) }

// visitor is what eachChild gives the children to.
type visitor interface{ visit(Node) }

// collector collects the children.
type collector struct{ out []Node }

func (c *collector) visit(n Node) { c.out = append(c.out, n) }

// children lists the non-nil children of n in source order.
func children(n Node) []Node {
	var c collector
	eachChild(n, &c)
	return c.out
}

// eachChild gives v the non-nil children of n in source order, without
// making a list of them (Inspect visits every node of every variant the
// tuner generates). It is the one type switch that knows the shape of
// every node.
func eachChild(n Node, v visitor) {
	add := func(c Node) {
		switch c := c.(type) {
		case nil:
			return
		case *Block:
			if c == nil {
				return
			}
		case Expr:
			if isNilExpr(c) {
				return
			}
		}
		v.visit(c)
	}
	switch n := n.(type) {
	case *Kernel:
		add(n.Body)
	case *Ident, *IntLit, *FloatLit, *Special, *Barrier:
	case *Index:
		for _, x := range n.Indices {
			add(x)
		}
	case *Binary:
		add(n.X)
		add(n.Y)
	case *Unary:
		add(n.X)
	case *Call:
		for _, x := range n.Args {
			add(x)
		}
	case *Cast:
		add(n.X)
	case *Load:
		add(n.Ref)
	case *Lane:
		add(n.X)
	case *Vector:
		for _, x := range n.Elems {
			add(x)
		}
	case *Decl:
		if n.Init != nil {
			add(n.Init)
		}
	case *Assign:
		add(n.LHS)
		add(n.RHS)
	case *Block:
		for _, s := range n.List {
			add(s)
		}
	case *If:
		add(n.Cond)
		add(n.Then)
		if n.Else != nil {
			add(n.Else)
		}
	case *For:
		add(n.Lo)
		add(n.Hi)
		add(n.Step)
		add(n.Body)
	case *While:
		add(n.Cond)
		add(n.Body)
	case *Compute:
		add(n.Body)
	default:
		panic(fmt.Sprintf("ast: unknown node %T", n))
	}
}

func isNilExpr(e Expr) bool {
	switch e := e.(type) {
	case *Ident:
		return e == nil
	case *Index:
		return e == nil
	case *IntLit:
		return e == nil
	}
	return e == nil
}

// Cursor describes a node met during Apply: the node, and the means to
// replace it, delete it or insert statements around it. A cursor is valid
// only during the call of pre or post it is given to.
type Cursor struct {
	node Node
	// Where node is held, for Replace: one of these is set.
	expr  *Expr
	block **Block
	ref   **Index
	root  *Node
	stmt  bool // node is list's index-th statement, held in cur
	cur   Stmt

	list    *[]Stmt // the statement list holding node, if any
	index   int
	deleted bool
	before  []Stmt
	after   []Stmt
}

// Node returns the current node.
func (c *Cursor) Node() Node { return c.node }

// Replace replaces the current node with n, which must fit the slot (an
// Expr for an Expr, a Stmt for a Stmt). Apply does not visit n's children.
func (c *Cursor) Replace(n Node) {
	switch {
	case c.stmt:
		c.cur = n.(Stmt)
	case c.expr != nil:
		*c.expr = n.(Expr)
	case c.block != nil:
		*c.block = n.(*Block)
	case c.ref != nil:
		*c.ref = n.(*Index)
	case c.root != nil:
		*c.root = n
	}
	c.node = n
}

// Delete removes the current statement from its block. It panics if the
// current node is not a statement in a block.
func (c *Cursor) Delete() {
	if c.list == nil {
		panic("ast: Cursor.Delete of a node not in a statement list")
	}
	c.deleted = true
}

// InsertBefore inserts s before the current statement in its block.
func (c *Cursor) InsertBefore(s ...Stmt) {
	if c.list == nil {
		panic("ast: Cursor.InsertBefore of a node not in a statement list")
	}
	c.before = append(c.before, s...)
}

// InsertAfter inserts s after the current statement in its block.
func (c *Cursor) InsertAfter(s ...Stmt) {
	if c.list == nil {
		panic("ast: Cursor.InsertAfter of a node not in a statement list")
	}
	c.after = append(c.after, s...)
}

// InList reports whether the current node is a statement of a block.
func (c *Cursor) InList() bool { return c.list != nil }

// Apply traverses the tree rooted at root, calling pre before a node's
// children and post after them (either may be nil). If pre returns false the
// children are skipped (post is still called). Through the cursor a function
// can replace the node, delete it or insert statements around it, in the
// manner of golang.org/x/tools/go/ast/astutil.Apply. Apply returns the
// possibly replaced root. It rewrites the tree in place (statement lists
// included): passes call it on a Clone.
func Apply(root Node, pre, post func(*Cursor) bool) Node {
	a := &applier{pre: pre, post: post}
	result := root
	c := a.cursor(root)
	c.root = &result
	a.visit(c)
	return result
}

// applier is one Apply. Its cursors are reused: the tuner applies the
// passes to thousands of variants, some of them fully unrolled into
// hundreds of thousands of nodes, and a cursor is needed only while its
// node is visited.
type applier struct {
	pre, post func(*Cursor) bool
	free      []*Cursor
}

// cursor returns a cleared cursor at n.
func (a *applier) cursor(n Node) *Cursor {
	if k := len(a.free); k > 0 {
		c := a.free[k-1]
		a.free = a.free[:k-1]
		*c = Cursor{node: n}
		return c
	}
	return &Cursor{node: n}
}

// visit handles one node and frees its cursor.
func (a *applier) visit(c *Cursor) {
	if c.node == nil {
		return
	}
	if a.pre == nil || a.pre(c) {
		if !c.deleted {
			a.children(c.node)
		}
	}
	if a.post != nil && !c.deleted {
		a.post(c)
	}
}

func (a *applier) done(c *Cursor) { a.free = append(a.free, c) }

func (a *applier) expr(slot *Expr) {
	if *slot == nil || isNilExpr(*slot) {
		return
	}
	c := a.cursor(*slot)
	c.expr = slot
	a.visit(c)
	a.done(c)
}

func (a *applier) block(slot **Block) {
	if *slot == nil {
		return
	}
	c := a.cursor(*slot)
	c.block = slot
	a.visit(c)
	a.done(c)
}

func (a *applier) children(n Node) {
	switch n := n.(type) {
	case *Kernel:
		a.block(&n.Body)
	case *Ident, *IntLit, *FloatLit, *Special, *Barrier:
	case *Index:
		for i := range n.Indices {
			a.expr(&n.Indices[i])
		}
	case *Binary:
		a.expr(&n.X)
		a.expr(&n.Y)
	case *Unary:
		a.expr(&n.X)
	case *Call:
		for i := range n.Args {
			a.expr(&n.Args[i])
		}
	case *Cast:
		a.expr(&n.X)
	case *Load:
		if n.Ref != nil {
			c := a.cursor(n.Ref)
			c.ref = &n.Ref
			a.visit(c)
			a.done(c)
		}
	case *Lane:
		a.expr(&n.X)
	case *Vector:
		for i := range n.Elems {
			a.expr(&n.Elems[i])
		}
	case *Decl:
		a.expr(&n.Init)
	case *Assign:
		a.expr(&n.LHS)
		a.expr(&n.RHS)
	case *Block:
		a.list(&n.List)
	case *If:
		a.expr(&n.Cond)
		a.block(&n.Then)
		a.block(&n.Else)
	case *For:
		a.expr(&n.Lo)
		a.expr(&n.Hi)
		a.expr(&n.Step)
		a.block(&n.Body)
	case *While:
		a.expr(&n.Cond)
		a.block(&n.Body)
	case *Compute:
		a.block(&n.Body)
	default:
		panic(fmt.Sprintf("ast: unknown node %T", n))
	}
}

// list visits the statements of *list. Statements replaced are written
// back in place; the list is made anew only when a statement is deleted
// or inserted.
func (a *applier) list(list *[]Stmt) {
	old := *list
	var out []Stmt // nil while the statements are those of old
	for i, s := range old {
		c := a.cursor(s)
		c.stmt, c.cur, c.list, c.index = true, s, list, i
		a.visit(c)
		if out == nil && (c.deleted || len(c.before) > 0 || len(c.after) > 0) {
			out = make([]Stmt, i, len(old)+len(c.before)+len(c.after))
			copy(out, old[:i])
		}
		if out == nil {
			old[i] = c.cur
		} else {
			out = append(out, c.before...)
			if !c.deleted {
				out = append(out, c.cur)
			}
			out = append(out, c.after...)
		}
		a.done(c)
	}
	if out != nil {
		*list = out
	}
}

// Clone returns a deep copy of n: passes never mutate the caller's kernel.
func Clone[N Node](n N) N {
	return cloner{}.node(n).(N)
}

// cloner deep-copies nodes; with repl, it substitutes as it copies (see
// Substitute).
type cloner struct {
	repl map[string]Expr
}

func (c cloner) exprs(xs []Expr) []Expr {
	if xs == nil {
		return nil
	}
	out := make([]Expr, len(xs))
	for i, x := range xs {
		out[i] = c.expr(x)
	}
	return out
}

func (c cloner) expr(x Expr) Expr {
	if x == nil || isNilExpr(x) {
		return nil
	}
	return c.node(x).(Expr)
}

func (c cloner) block(b *Block) *Block {
	if b == nil {
		return nil
	}
	return c.node(b).(*Block)
}

// CloneExpr deep-copies an expression; nil stays nil.
func CloneExpr(x Expr) Expr { return cloner{}.expr(x) }

// node returns a copy of n, or, for a variable or special in c.repl, a
// copy of its expression, in which nothing is substituted.
func (c cloner) node(n Node) Node {
	if c.repl != nil {
		switch n := n.(type) {
		case *Ident:
			if r, ok := c.repl[n.Name]; ok {
				return CloneExpr(r)
			}
		case *Special:
			if r, ok := c.repl[n.Name()]; ok {
				return CloneExpr(r)
			}
		}
	}
	return c.copy(n)
}

// renamed is name, or the name of the variable c.repl maps it to.
func (c cloner) renamed(name string) string {
	if id, ok := c.repl[name].(*Ident); ok {
		return id.Name
	}
	return name
}

// copy copies n itself, and its children with c.node.
func (c cloner) copy(n Node) Node {
	switch n := n.(type) {
	case *Kernel:
		params := make([]*Param, len(n.Params))
		for i, p := range n.Params {
			q := *p
			if p.Extents != nil {
				q.Extents = append([]int(nil), p.Extents...)
			}
			params[i] = &q
		}
		return &Kernel{Name: n.Name, Params: params, Body: c.block(n.Body), WorkGroup: append([]int(nil), n.WorkGroup...), Options: n.Options}
	case *Ident:
		x := *n
		return &x
	case *IntLit:
		x := *n
		return &x
	case *FloatLit:
		x := *n
		return &x
	case *Special:
		x := *n
		return &x
	case *Barrier:
		x := *n
		return &x
	case *Index:
		return &Index{Array: n.Array, Indices: c.exprs(n.Indices)}
	case *Binary:
		return &Binary{Op: n.Op, X: c.expr(n.X), Y: c.expr(n.Y)}
	case *Unary:
		return &Unary{Op: n.Op, X: c.expr(n.X)}
	case *Call:
		return &Call{Func: n.Func, Args: c.exprs(n.Args)}
	case *Cast:
		return &Cast{Type: n.Type, X: c.expr(n.X)}
	case *Load:
		return &Load{Width: n.Width, Ref: c.node(n.Ref).(*Index), Aligned: n.Aligned}
	case *Lane:
		return &Lane{X: c.expr(n.X), Lane: n.Lane}
	case *Vector:
		return &Vector{Type: n.Type, Width: n.Width, Elems: c.exprs(n.Elems)}
	case *Decl:
		return &Decl{Name: c.renamed(n.Name), Type: n.Type, Mem: n.Mem, Extents: append([]int(nil), n.Extents...), Init: c.expr(n.Init), Width: n.Width, Align: n.Align}
	case *Assign:
		return &Assign{LHS: c.expr(n.LHS), Op: n.Op, RHS: c.expr(n.RHS)}
	case *Block:
		list := make([]Stmt, len(n.List))
		for i, s := range n.List {
			list[i] = c.node(s).(Stmt)
		}
		return &Block{List: list}
	case *If:
		return &If{Cond: c.expr(n.Cond), Then: c.block(n.Then), Else: c.block(n.Else)}
	case *For:
		return &For{Var: c.renamed(n.Var), Lo: c.expr(n.Lo), Hi: c.expr(n.Hi), Step: c.expr(n.Step), Body: c.block(n.Body), Role: n.Role, Unroll: n.Unroll}
	case *While:
		return &While{Cond: c.expr(n.Cond), Body: c.block(n.Body)}
	case *Compute:
		return &Compute{Body: c.block(n.Body)}
	}
	panic(fmt.Sprintf("ast: unknown node %T", n))
}

// Substitute returns a copy of x in which every reference to a variable in
// repl is replaced by a copy of its expression. Specials can be replaced too,
// keyed by their paper names (idx, lidy, ...). The substitution is
// simultaneous: nothing is substituted in the copies of repl's expressions
// (idx may map to an expression of idx).
func Substitute(x Expr, repl map[string]Expr) Expr {
	return cloner{repl: repl}.expr(x)
}

// SubstituteStmt is Substitute over a statement, returning a rewritten copy;
// a loop's variable or a declared name that repl maps to a variable is
// renamed too.
func SubstituteStmt(s Stmt, repl map[string]Expr) Stmt {
	return cloner{repl: repl}.node(s).(Stmt)
}

// Simplify returns n with integer constant subexpressions folded (the
// identities of Bin) and with blocks that declare nothing merged into the
// block around them. It rewrites n in place.
func Simplify(n Node) Node {
	return Apply(n, nil, func(c *Cursor) bool {
		switch x := c.Node().(type) {
		case *Binary:
			if f := Bin(x.Op, x.X, x.Y); f != Expr(x) {
				c.Replace(f)
			} else if l, ok := x.Y.(*IntLit); ok && x.Op == Add && l.Value < 0 {
				c.Replace(&Binary{Op: Sub, X: x.X, Y: IntConst(-l.Value)})
			}
		case *Block:
			var list []Stmt
			for _, s := range x.List {
				if b, ok := s.(*Block); ok && !declares(b) {
					list = append(list, b.List...)
					continue
				}
				list = append(list, s)
			}
			x.List = list
		}
		return true
	})
}

func declares(b *Block) bool {
	for _, s := range b.List {
		if _, ok := s.(*Decl); ok {
			return true
		}
	}
	return false
}

// Accesses returns the arrays k reads and those it assigns (an element, or
// a vector of elements through a Load), by name: an array is read where an
// element of it is an operand, the left side of a compound assignment
// (a[i] += x), or in a subscript.
func Accesses(k *Kernel) (read, written map[string]bool) {
	read, written = map[string]bool{}, map[string]bool{}
	reads := func(e Node) {
		Inspect(e, func(m Node) bool {
			if r, ok := m.(*Index); ok {
				read[r.Array] = true
			}
			return true
		})
	}
	Inspect(k.Body, func(n Node) bool {
		switch n := n.(type) {
		case *Assign:
			ix, ok := n.LHS.(*Index)
			if l, isLoad := n.LHS.(*Load); isLoad {
				ix, ok = l.Ref, true
			}
			if ok {
				written[ix.Array] = true
				if n.Op != Set {
					read[ix.Array] = true
				}
				for _, i := range ix.Indices {
					reads(i)
				}
				reads(n.RHS)
				return false
			}
		case *Index:
			read[n.Array] = true
		}
		return true
	})
	return read, written
}
