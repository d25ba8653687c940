package clc

import (
	"fmt"
	"go/token"
	"math"
	"strconv"
	"strings"

	"modernc.org/cc/v4"

	"github.com/hplopt/hplopt/ast"
)

// maxErrors is where conversion stops reporting.
const maxErrors = 10

// converter maps the C syntax tree of one kernel function to the kernel AST.
type converter struct {
	errs   ErrorList
	kernel *ast.Kernel
	vars   map[*cc.Declarator]*variable
	names  map[string]*variable // kernel names taken, by their variable
	types  map[string]ast.Type  // kernel name to scalar or element type
	ranks  map[string]int       // array name to rank
	loops  []*loopScope         // the loops being converted, innermost last
}

// variable is a C declarator as the kernel sees it.
type variable struct {
	name    string
	typ     ast.Type
	param   bool
	rank    int          // 0 for a scalar; 1 for a pointer argument; a private array's dimensions
	mem     ast.Mem      // of an array argument
	special *ast.Special // a private alias of a work-item function, replaced by it
	loopVar bool         // declared in the initialization of a for loop
	ended   bool         // a loop variable whose loop has ended
}

// loopScope is a for loop being converted: its counter and the variables
// its bound and step read, which the body must not assign.
type loopScope struct {
	counter *variable
	reads   map[*variable]bool
	header  string // for (k = 0; k < n; k++), for messages
}

// stop is panicked to abandon conversion after maxErrors.
type stop struct{}

func (c *converter) errorf(n cc.Node, format string, args ...any) {
	var pos token.Position
	if n != nil {
		p := n.Position()
		pos = token.Position{Filename: p.Filename, Offset: p.Offset, Line: p.Line, Column: p.Column}
	}
	c.errs = append(c.errs, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
	if len(c.errs) >= maxErrors {
		panic(stop{})
	}
}

// bad is the placeholder for an expression that could not be converted.
func bad() ast.Expr { return &ast.Ident{Name: "?"} }

func isBad(x ast.Expr) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == "?"
}

// ---- declarations ----

// attrs lists the OpenCL qualifiers among n's tokens (the prelude turns
// them into attributes): global, constant, local, private, image, kernel;
// each with its token, which has the position of the qualifier.
func attrs(n cc.Node) map[string]cc.Node {
	out := map[string]cc.Node{}
	for _, t := range cc.NodeTokens(n) {
		if s := t.SrcStr(); strings.HasPrefix(s, "opencl_") {
			if q := strings.TrimPrefix(s, "opencl_"); out[q] == nil {
				out[q] = t
			}
		}
	}
	return out
}

// typeName describes a C type for messages, by its typedef name if it has one.
func typeName(t cc.Type) string {
	if td := t.Typedef(); td != nil {
		return td.Name()
	}
	return t.String()
}

// scalarType maps a C type to the kernel's int, float or double. A
// typedef of the kernel's source names its type; OpenCL's own (size_t,
// uint, bool, the vector types) are not int, float or double.
func scalarType(t cc.Type) (ast.Type, bool) {
	if td := t.Typedef(); td != nil && td.Position().Filename == preludeName {
		return ast.Invalid, false
	}
	switch t.Kind() {
	case cc.Int:
		return ast.Int, true
	case cc.Float:
		return ast.Float, true
	case cc.Double:
		return ast.Double, true
	}
	return ast.Invalid, false
}

func isInteger(t cc.Type) bool {
	switch t.Kind() {
	case cc.Int, cc.UInt, cc.Long, cc.ULong, cc.LongLong, cc.ULongLong, cc.Short, cc.UShort, cc.Char, cc.SChar, cc.UChar:
		return true
	}
	return false
}

// declare gives a declarator its kernel name: its C name unless that is
// reserved or taken by another variable (names are unique in a kernel),
// in which case a suffix makes it unique. Loop variables of loops that
// have ended share their name with a new loop variable, as the DSL's
// loops share counters.
func (c *converter) declare(d *cc.Declarator, v *variable) *variable {
	base := d.Name()
	free := func(n string) bool {
		o := c.names[n]
		return !reserved[n] && (o == nil || v.loopVar && o.loopVar && o.ended && o.typ == v.typ)
	}
	name := base
	for i := 1; !free(name); i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	v.name = name
	c.names[name] = v
	c.types[name] = v.typ
	if v.rank > 0 {
		c.ranks[name] = v.rank
	}
	c.vars[d] = v
	return v
}

// function converts the kernel function f.
func (c *converter) function(f *cc.FunctionDefinition) {
	d := f.Declarator
	c.kernel = &ast.Kernel{Name: d.Name(), Body: &ast.Block{}}
	for _, n := range []cc.Node{f.DeclarationSpecifiers, d} {
		for _, t := range cc.NodeTokens(n) {
			switch s := t.SrcStr(); s {
			case "reqd_work_group_size", "work_group_size_hint", "vec_type_hint", "intel_reqd_sub_group_size":
				c.errorf(t, "the kernel attribute %s is not supported (the optimizer chooses the work-groups)", s)
			}
		}
	}
	if ft, ok := d.Type().(*cc.FunctionType); ok && ft.Result().Kind() != cc.Void {
		c.errorf(d, "a kernel returns void, not %s", typeName(ft.Result()))
	}
	if reserved[d.Name()] {
		c.errorf(d, "the kernel cannot be called %s", d.Name())
	}
	dd := d.DirectDeclarator
	for dd != nil && dd.Case != cc.DirectDeclaratorFuncParam && dd.Case != cc.DirectDeclaratorFuncIdent {
		dd = dd.DirectDeclarator
	}
	if dd != nil && dd.ParameterTypeList != nil {
		if dd.ParameterTypeList.Case == cc.ParameterTypeListVar {
			c.errorf(dd.ParameterTypeList.Token2, "variadic kernels are not supported")
		}
		for l := dd.ParameterTypeList.ParameterList; l != nil; l = l.ParameterList {
			c.param(l.ParameterDeclaration)
		}
	}
	if dd != nil && dd.Case == cc.DirectDeclaratorFuncIdent && dd.IdentifierList != nil {
		c.errorf(dd, "old-style (K&R) parameter lists are not supported")
	}
	list := items(f.CompoundStatement)
	// The C parser declares __func__ at the start of every function.
	if len(list) > 0 && list[0].Case == cc.BlockItemDecl {
		if l := list[0].Declaration.InitDeclaratorList; l != nil && l.InitDeclarator.Declarator.Name() == "__func__" {
			list = list[1:]
		}
	}
	body := c.topItems(list)
	c.kernel.Body.List = []ast.Stmt{&ast.Compute{Body: ast.NewBlock(body...)}}
}

func (c *converter) param(pd *cc.ParameterDeclaration) {
	d := pd.Declarator
	if d == nil {
		if pd.Type().Kind() != cc.Void {
			c.errorf(pd, "kernel arguments need names")
		}
		return
	}
	name := d.Name()
	a := attrs(pd)
	t := d.Type()
	v := &variable{param: true}
	switch {
	case a["image"] != nil || strings.HasPrefix(typeName(t), "image"):
		c.errorf(d, "image arguments are not supported")
		return
	case t.Kind() == cc.Ptr:
		elem := t.(*cc.PointerType).Elem()
		et, ok := scalarType(elem)
		if !ok {
			c.errorf(d, "argument %s points to %s: arrays of int, float and double are supported", name, typeName(elem))
			return
		}
		switch {
		case a["local"] != nil:
			c.errorf(a["local"], "__local argument %s is not supported (local memory is the optimizer's to use)", name)
			return
		case a["constant"] != nil:
			v.mem = ast.Constant
		case a["global"] != nil:
			v.mem = ast.Global
		default:
			c.errorf(d, "pointer argument %s has no address space: declare it __global", name)
			return
		}
		v.typ, v.rank = et, 1
	default:
		st, ok := scalarType(t)
		if !ok {
			c.errorf(d, "argument %s has type %s: int, float and double scalars are supported", name, typeName(t))
			return
		}
		if a["local"] != nil || a["global"] != nil || a["constant"] != nil {
			c.errorf(d, "argument %s is a scalar with an address space", name)
		}
		v.typ = st
	}
	if reserved[name] {
		c.errorf(d, "argument name %s is reserved by hplopt (a predefined identifier or built-in); rename it", name)
		return
	}
	if c.names[name] != nil {
		c.errorf(d, "argument %s is declared twice", name)
		return
	}
	c.declare(d, v)
	c.kernel.Params = append(c.kernel.Params, &ast.Param{Name: name, Type: v.typ, Rank: v.rank, Mem: v.mem})
}

// items lists a compound statement's block items.
func items(cs *cc.CompoundStatement) []*cc.BlockItem {
	var out []*cc.BlockItem
	if cs == nil {
		return nil
	}
	for l := cs.BlockItemList; l != nil; l = l.BlockItemList {
		out = append(out, l.BlockItem)
	}
	return out
}

// declaration converts a declaration inside the kernel.
func (c *converter) declaration(decl *cc.Declaration) []ast.Stmt {
	if decl.Case != cc.DeclarationDecl {
		c.errorf(decl, "this declaration is not supported")
		return nil
	}
	for l := decl.InitDeclaratorList; l != nil; l = l.InitDeclaratorList {
		if d := l.InitDeclarator.Declarator; d.Type().Kind() == cc.Ptr {
			c.errorf(d, "pointer variables are not supported (pointer arithmetic): index the argument instead")
			return nil
		}
	}
	a := attrs(decl.DeclarationSpecifiers)
	switch {
	case a["local"] != nil:
		c.errorf(a["local"], "__local variables are not supported (local memory is the optimizer's to use)")
		return nil
	case a["global"] != nil || a["constant"] != nil:
		c.errorf(decl, "variables in global or constant memory are not supported in a kernel")
		return nil
	}
	for s := decl.DeclarationSpecifiers; s != nil; s = s.DeclarationSpecifiers {
		if s.Case == cc.DeclarationSpecifiersStorage {
			c.errorf(s, "storage class %s is not supported", s.StorageClassSpecifier.Token.SrcStr())
			return nil
		}
	}
	var out []ast.Stmt
	for l := decl.InitDeclaratorList; l != nil; l = l.InitDeclaratorList {
		out = append(out, c.initDeclarator(l.InitDeclarator, false)...)
	}
	return out
}

// initDeclarator converts one declared variable, with its initializer.
// For a loop variable it returns no statement (the For declares it) and
// records the variable; the caller reads the initial value.
func (c *converter) initDeclarator(id *cc.InitDeclarator, loopVar bool) []ast.Stmt {
	d := id.Declarator
	t := d.Type()
	var init cc.ExpressionNode
	if id.Case == cc.InitDeclaratorInit {
		if id.Initializer.Case != cc.InitializerExpr {
			c.errorf(id.Initializer, "initializer lists are not supported")
			return nil
		}
		init = id.Initializer.AssignmentExpression
	}
	switch t.Kind() {
	case cc.Ptr:
		c.errorf(d, "pointer variables are not supported (pointer arithmetic): index the argument instead")
		return nil
	case cc.Array:
		return c.privateArray(d, t, init)
	}
	// A never-assigned integer initialized with a work-item function is
	// that function's value: the kernel uses the predefined identifier.
	if init != nil && isInteger(t) && d.WriteCount() == 1 && !d.AddressTaken() && !loopVar {
		if s := c.workItemCall(init); s != nil {
			c.vars[d] = &variable{name: d.Name(), typ: ast.Int, special: s}
			return nil
		}
	}
	st, ok := scalarType(t)
	if !ok {
		switch {
		case isInteger(t):
			c.errorf(d, "type %s is not supported (int, float and double are; a %s is accepted only to hold get_global_id or a like function)", typeName(t), typeName(t))
		case strings.Contains(typeName(t), "float") || strings.Contains(typeName(t), "double") || strings.Contains(typeName(t), "int"):
			c.errorf(d, "vector type %s is not supported", typeName(t))
		default:
			c.errorf(d, "type %s is not supported (int, float and double are)", typeName(t))
		}
		return nil
	}
	v := c.declare(d, &variable{typ: st, loopVar: loopVar})
	if loopVar {
		return nil
	}
	decl := &ast.Decl{Name: v.name, Type: st, Mem: ast.Private}
	if init == nil {
		return []ast.Stmt{decl}
	}
	if cond, ok := ternary(init); ok {
		return []ast.Stmt{decl, c.selectAssign(ast.Id(v.name), ast.Set, cond)}
	}
	decl.Init = c.convertTo(c.value(init), st)
	return []ast.Stmt{decl}
}

// privateArray converts a private array with constant extents.
func (c *converter) privateArray(d *cc.Declarator, t cc.Type, init cc.ExpressionNode) []ast.Stmt {
	var ext []int
	for t.Kind() == cc.Array {
		at := t.(*cc.ArrayType)
		if at.IsVLA() || at.IsIncomplete() || at.Len() <= 0 {
			c.errorf(d, "array %s needs constant positive extents", d.Name())
			return nil
		}
		ext = append(ext, int(at.Len()))
		t = at.Elem()
	}
	st, ok := scalarType(t)
	switch {
	case !ok:
		c.errorf(d, "array %s has elements of type %s: int, float and double are supported", d.Name(), typeName(t))
		return nil
	case len(ext) > 3:
		c.errorf(d, "array %s has %d dimensions; private arrays have 1 to 3", d.Name(), len(ext))
		return nil
	case init != nil:
		c.errorf(d, "array initializers are not supported")
		return nil
	}
	v := c.declare(d, &variable{typ: st, rank: len(ext)})
	return []ast.Stmt{&ast.Decl{Name: v.name, Type: st, Mem: ast.Private, Extents: ext}}
}

// workItemCall returns the predefined identifier that n, a call of a
// work-item function with a constant dimension (possibly cast to an
// integer type), stands for; nil if n is not one.
func (c *converter) workItemCall(n cc.ExpressionNode) *ast.Special {
	n = unparen(n)
	if ce, ok := n.(*cc.CastExpression); ok && ce.Case == cc.CastExpressionCast && isInteger(ce.TypeName.Type()) {
		return c.workItemCall(ce.CastExpression)
	}
	pe, ok := n.(*cc.PostfixExpression)
	if !ok || pe.Case != cc.PostfixExpressionCall {
		return nil
	}
	name := calleeName(pe)
	if _, ok := workItem[name]; !ok {
		return nil
	}
	x := c.call(pe)
	s, _ := x.(*ast.Special)
	return s
}

// unparen strips parentheses and single-element expression lists.
func unparen(n cc.ExpressionNode) cc.ExpressionNode {
	for {
		switch x := n.(type) {
		case *cc.PrimaryExpression:
			if x.Case != cc.PrimaryExpressionExpr {
				return n
			}
			n = x.ExpressionList
		case *cc.ExpressionList:
			if x.ExpressionList != nil {
				return n
			}
			n = x.AssignmentExpression
		default:
			return n
		}
	}
}

// calleeName is the name of the function a call expression calls, or "".
func calleeName(pe *cc.PostfixExpression) string {
	if p, ok := unparen(pe.PostfixExpression).(*cc.PrimaryExpression); ok && p.Case == cc.PrimaryExpressionIdent {
		return p.Token.SrcStr()
	}
	return ""
}

// ---- statements ----

// topItems converts the kernel body's block items. Here, and only here,
// an if statement whose branch ends with return is an early exit: the
// statements after it move into the other branch, so that
//
//	if (i >= n) return;
//	rest
//
// becomes if (i < n) { rest }.
func (c *converter) topItems(list []*cc.BlockItem) []ast.Stmt {
	var out []ast.Stmt
	for i, it := range list {
		if it.Case != cc.BlockItemStmt {
			out = append(out, c.blockItem(it)...)
			continue
		}
		s := it.Statement
		if isReturn(s) {
			c.returnValue(s)
			if i < len(list)-1 {
				c.errorf(list[i+1], "statements after return are never run")
			}
			return out
		}
		if s.Case != cc.StatementSelection || s.SelectionStatement.Case == cc.SelectionStatementSwitch {
			out = append(out, c.stmt(s)...)
			continue
		}
		sel := s.SelectionStatement
		thenRet := endsWithReturn(sel.Statement)
		elseRet := sel.Case == cc.SelectionStatementIfElse && endsWithReturn(sel.Statement2)
		if !thenRet && !elseRet {
			out = append(out, c.stmt(s)...)
			continue
		}
		cond := c.condition(sel.ExpressionList)
		then := c.branch(sel.Statement, thenRet)
		var els []ast.Stmt
		if sel.Case == cc.SelectionStatementIfElse {
			els = c.branch(sel.Statement2, elseRet)
		}
		rest := list[i+1:]
		switch {
		case thenRet && elseRet:
			if len(rest) > 0 {
				c.errorf(rest[0], "statements after an if whose branches both return are never run")
			}
		case thenRet:
			els = append(els, c.topItems(rest)...)
		default:
			then = append(then, c.topItems(rest)...)
		}
		if len(then) == 0 && len(els) > 0 {
			out = append(out, &ast.If{Cond: c.negate(cond), Then: ast.NewBlock(els...)})
		} else if len(then) > 0 || len(els) > 0 {
			s := &ast.If{Cond: cond, Then: ast.NewBlock(then...)}
			if len(els) > 0 {
				s.Else = ast.NewBlock(els...)
			}
			out = append(out, s)
		}
		return out
	}
	return out
}

func isReturn(s *cc.Statement) bool {
	return s.Case == cc.StatementJump && s.JumpStatement.Case == cc.JumpStatementReturn
}

// returnValue rejects return with a value (a kernel returns void).
func (c *converter) returnValue(s *cc.Statement) {
	if s.JumpStatement.ExpressionList != nil {
		c.errorf(s, "a kernel returns void: return takes no value")
	}
}

// endsWithReturn reports whether s is return or a block ending with one.
func endsWithReturn(s *cc.Statement) bool {
	if isReturn(s) {
		return true
	}
	if s.Case != cc.StatementCompound {
		return false
	}
	its := items(s.CompoundStatement)
	return len(its) > 0 && its[len(its)-1].Case == cc.BlockItemStmt && isReturn(its[len(its)-1].Statement)
}

// branch converts one branch of an early-exit if, without its final return.
func (c *converter) branch(s *cc.Statement, returns bool) []ast.Stmt {
	if !returns {
		return c.blockOf(s)
	}
	if isReturn(s) {
		c.returnValue(s)
		return nil
	}
	its := items(s.CompoundStatement)
	c.returnValue(its[len(its)-1].Statement)
	return c.blockItems(its[:len(its)-1])
}

// blockOf converts the body of an if or a loop.
func (c *converter) blockOf(s *cc.Statement) []ast.Stmt {
	if s.Case == cc.StatementCompound {
		return c.blockItems(items(s.CompoundStatement))
	}
	return c.stmt(s)
}

func (c *converter) blockItems(list []*cc.BlockItem) []ast.Stmt {
	var out []ast.Stmt
	for _, it := range list {
		out = append(out, c.blockItem(it)...)
	}
	return out
}

func (c *converter) blockItem(it *cc.BlockItem) []ast.Stmt {
	switch it.Case {
	case cc.BlockItemDecl:
		return c.declaration(it.Declaration)
	case cc.BlockItemStmt:
		return c.stmt(it.Statement)
	case cc.BlockItemFuncDef:
		c.errorf(it.Declarator, "nested functions are not supported")
	default:
		c.errorf(it.LabelDeclaration, "labels are not supported")
	}
	return nil
}

// stmt converts a statement to zero or more kernel statements (a block
// that declares nothing is spliced into the enclosing one).
func (c *converter) stmt(s *cc.Statement) []ast.Stmt {
	switch s.Case {
	case cc.StatementCompound:
		list := c.blockItems(items(s.CompoundStatement))
		for _, st := range list {
			if _, ok := st.(*ast.Decl); ok {
				return []ast.Stmt{ast.NewBlock(list...)}
			}
		}
		return list
	case cc.StatementExpr:
		if s.ExpressionStatement.ExpressionList == nil {
			return nil // ;
		}
		return c.exprStmt(s.ExpressionStatement.ExpressionList)
	case cc.StatementSelection:
		return c.selection(s.SelectionStatement)
	case cc.StatementIteration:
		return c.iteration(s.IterationStatement)
	case cc.StatementJump:
		j := s.JumpStatement
		switch j.Case {
		case cc.JumpStatementReturn:
			c.errorf(s, "return is supported only as an early exit at the top level of the kernel (if (i >= n) return;)")
		case cc.JumpStatementBreak:
			c.errorf(s, "break is not supported")
		case cc.JumpStatementContinue:
			c.errorf(s, "continue is not supported")
		default:
			c.errorf(s, "goto is not supported")
		}
	case cc.StatementLabeled:
		c.errorf(s, "labels and switch cases are not supported")
	case cc.StatementAsm:
		c.errorf(s, "asm is not supported")
	}
	return nil
}

func (c *converter) selection(sel *cc.SelectionStatement) []ast.Stmt {
	if sel.Case == cc.SelectionStatementSwitch {
		c.errorf(sel, "switch statements are not supported")
		return nil
	}
	out := &ast.If{Cond: c.condition(sel.ExpressionList), Then: ast.NewBlock(c.blockOf(sel.Statement)...)}
	if sel.Case == cc.SelectionStatementIfElse {
		out.Else = ast.NewBlock(c.blockOf(sel.Statement2)...)
	}
	return []ast.Stmt{out}
}

// condition converts the condition of an if, which must be a scalar.
func (c *converter) condition(n cc.ExpressionNode) ast.Expr {
	x := c.expr(n)
	if !isBad(x) && c.typeOf(x) == ast.Invalid {
		c.errorf(n, "the condition is not a scalar")
	}
	return x
}

// exprStmt converts an expression statement: an assignment, an increment
// or decrement.
func (c *converter) exprStmt(n cc.ExpressionNode) []ast.Stmt {
	n = unparen(n)
	switch x := n.(type) {
	case *cc.ExpressionList:
		c.errorf(x, "the comma operator is not supported")
		return nil
	case *cc.AssignmentExpression:
		if x.Case == cc.AssignmentExpressionCond {
			return c.exprStmt(x.ConditionalExpression)
		}
		op, ok := assignOps[x.Case]
		if !ok {
			c.errorf(x.Token, "compound assignment %s is not supported", x.Token.SrcStr())
			return nil
		}
		lhs := c.lvalue(x.UnaryExpression)
		if isBad(lhs) {
			return nil
		}
		if cond, ok := ternary(x.AssignmentExpression); ok {
			return []ast.Stmt{c.selectAssign(lhs, op, cond)}
		}
		rhs := c.value(x.AssignmentExpression)
		return []ast.Stmt{c.assign(lhs, op, rhs)}
	case *cc.PostfixExpression:
		switch x.Case {
		case cc.PostfixExpressionInc, cc.PostfixExpressionDec:
			return c.increment(x.PostfixExpression, x.Case == cc.PostfixExpressionInc)
		case cc.PostfixExpressionCall:
			name := calleeName(x)
			switch {
			case name == "barrier" || name == "work_group_barrier" || strings.HasSuffix(name, "mem_fence"):
				c.errorf(x, "%s is not supported (a single-point kernel has no work-group cooperation)", name)
			case name != "" && !c.isBuiltin(name):
				c.errorf(x, "%s is not supported", name)
			default:
				c.errorf(x, "a call whose value is not used has no effect")
			}
			return nil
		}
	case *cc.UnaryExpression:
		switch x.Case {
		case cc.UnaryExpressionInc, cc.UnaryExpressionDec:
			return c.increment(x.UnaryExpression, x.Case == cc.UnaryExpressionInc)
		}
	}
	c.errorf(n, "this statement has no effect")
	return nil
}

var assignOps = map[cc.AssignmentExpressionCase]ast.AssignOp{
	cc.AssignmentExpressionAssign: ast.Set,
	cc.AssignmentExpressionAdd:    ast.AddSet,
	cc.AssignmentExpressionSub:    ast.SubSet,
	cc.AssignmentExpressionMul:    ast.MulSet,
	cc.AssignmentExpressionDiv:    ast.DivSet,
}

func (c *converter) increment(n cc.ExpressionNode, inc bool) []ast.Stmt {
	lhs := c.lvalue(n)
	if isBad(lhs) {
		return nil
	}
	op := ast.AddSet
	if !inc {
		op = ast.SubSet
	}
	return []ast.Stmt{c.assign(lhs, op, ast.IntConst(1))}
}

// assign builds lhs op rhs, converting a constant right side to the type
// of the left.
func (c *converter) assign(lhs ast.Expr, op ast.AssignOp, rhs ast.Expr) ast.Stmt {
	if op == ast.Set {
		rhs = c.convertTo(rhs, c.typeOf(lhs))
	}
	return &ast.Assign{LHS: lhs, Op: op, RHS: rhs}
}

// ternary reports whether n is a conditional expression c ? a : b.
func ternary(n cc.ExpressionNode) (*cc.ConditionalExpression, bool) {
	ce, ok := unparen(n).(*cc.ConditionalExpression)
	return ce, ok && ce.Case == cc.ConditionalExpressionCond
}

// selectAssign turns lhs op (c ? a : b) into if (c) lhs op a; else lhs op b.
func (c *converter) selectAssign(lhs ast.Expr, op ast.AssignOp, ce *cc.ConditionalExpression) ast.Stmt {
	arm := func(n cc.ExpressionNode) *ast.Block {
		if inner, ok := ternary(n); ok {
			return ast.NewBlock(c.selectAssign(ast.CloneExpr(lhs), op, inner))
		}
		return ast.NewBlock(c.assign(ast.CloneExpr(lhs), op, c.value(n)))
	}
	return &ast.If{Cond: c.condition(ce.LogicalOrExpression), Then: arm(ce.ExpressionList), Else: arm(ce.ConditionalExpression)}
}

// lvalue converts the left side of an assignment: a private scalar or an
// element of an array.
func (c *converter) lvalue(n cc.ExpressionNode) ast.Expr {
	n = unparen(n)
	switch x := n.(type) {
	case *cc.PrimaryExpression:
		if x.Case == cc.PrimaryExpressionIdent {
			v := c.lookup(x)
			switch {
			case v == nil:
				return bad()
			case v.special != nil:
				c.errorf(x, "%s holds %s and cannot be assigned", v.name, v.special.CFunc())
				return bad()
			case v.param && v.rank == 0:
				c.errorf(x, "assigning to the argument %s is not supported: copy it to a private variable", v.name)
				return bad()
			case v.rank > 0:
				c.errorf(x, "array %s cannot be assigned; assign its elements", v.name)
				return bad()
			}
			for _, l := range c.loops {
				if l.counter == v {
					c.errorf(x, "the loop counter %s is assigned in the body of %s", v.name, l.header)
					return bad()
				}
				if l.reads[v] {
					c.errorf(x, "%s is assigned in the body of %s, whose bound or step reads it", v.name, l.header)
					return bad()
				}
			}
			return ast.Id(v.name)
		}
	case *cc.PostfixExpression:
		if x.Case == cc.PostfixExpressionIndex {
			ix := c.expr(x)
			if i, ok := ix.(*ast.Index); ok {
				if p := c.kernel.Param(i.Array); p != nil && p.Mem == ast.Constant {
					c.errorf(x, "%s is in constant memory and cannot be assigned", i.Array)
					return bad()
				}
			}
			return ix
		}
	case *cc.UnaryExpression:
		if x.Case == cc.UnaryExpressionDeref {
			c.errorf(x, "pointer dereference is not supported: index the array")
			return bad()
		}
	}
	c.errorf(n, "the left side of an assignment must be a variable or an array element")
	return bad()
}

// iteration converts a for loop of the counted form
// for (int k = lo; k < hi; k++) (or k <= hi, k += step).
func (c *converter) iteration(it *cc.IterationStatement) []ast.Stmt {
	switch it.Case {
	case cc.IterationStatementWhile:
		c.errorf(it, "while loops are not supported: write a counted for loop")
		return nil
	case cc.IterationStatementDo:
		c.errorf(it, "do-while loops are not supported: write a counted for loop")
		return nil
	}
	header := loopHeader(it)
	var counter *variable
	var lo ast.Expr
	if it.Case == cc.IterationStatementForDecl {
		decl := it.Declaration
		l := decl.InitDeclaratorList
		if l == nil || l.InitDeclaratorList != nil || l.InitDeclarator.Case != cc.InitDeclaratorInit {
			c.errorf(decl, "a for loop declares one counter with its initial value")
			return nil
		}
		d := l.InitDeclarator.Declarator
		if t, ok := scalarType(d.Type()); !ok || t != ast.Int {
			c.errorf(d, "the loop counter %s must be an int, not %s", d.Name(), typeName(d.Type()))
			return nil
		}
		if l.InitDeclarator.Initializer.Case != cc.InitializerExpr {
			c.errorf(l.InitDeclarator.Initializer, "initializer lists are not supported")
			return nil
		}
		lo = c.expr(l.InitDeclarator.Initializer.AssignmentExpression)
		c.initDeclarator(l.InitDeclarator, true)
		counter = c.vars[d]
	} else {
		if it.ExpressionList == nil {
			c.errorf(it, "a for loop must initialize its counter (for (k = 0; ...))")
			return nil
		}
		as, ok := unparen(it.ExpressionList).(*cc.AssignmentExpression)
		if !ok || as.Case != cc.AssignmentExpressionAssign {
			c.errorf(it.ExpressionList, "a for loop must initialize its counter (for (k = 0; ...))")
			return nil
		}
		x := c.lvalue(as.UnaryExpression)
		if isBad(x) {
			return nil
		}
		id, ok := x.(*ast.Ident)
		if !ok || c.types[id.Name] != ast.Int {
			c.errorf(as.UnaryExpression, "the loop counter must be a private int variable")
			return nil
		}
		counter = c.names[id.Name]
		lo = c.expr(as.AssignmentExpression)
	}
	if counter == nil {
		return nil
	}
	condN, stepN := it.ExpressionList2, it.ExpressionList3
	if it.Case == cc.IterationStatementForDecl {
		condN, stepN = it.ExpressionList, it.ExpressionList2
	}
	hi := c.loopBound(it, condN, counter)
	step := c.loopStep(it, stepN, counter)
	if isBad(lo) || isBad(hi) || isBad(step) {
		return nil
	}
	for _, e := range []ast.Expr{lo, hi, step} {
		if t := c.typeOf(e); t != ast.Int {
			c.errorf(it, "the bounds and step of %s must be integers, not %s", header, t)
			return nil
		}
	}
	scope := &loopScope{counter: counter, reads: map[*variable]bool{}, header: header}
	for _, e := range []ast.Expr{hi, step} {
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if v := c.names[id.Name]; v != nil && !v.param {
					scope.reads[v] = true
				}
			}
			return true
		})
	}
	c.loops = append(c.loops, scope)
	body := c.blockOf(it.Statement)
	c.loops = c.loops[:len(c.loops)-1]
	if counter.loopVar {
		counter.ended = true
	}
	return []ast.Stmt{&ast.For{Var: counter.name, Lo: lo, Hi: hi, Step: step, Body: ast.NewBlock(body...)}}
}

// loopHeader is the text of a for statement up to its body, for messages.
func loopHeader(it *cc.IterationStatement) string {
	src := strings.TrimSpace(cc.NodeSource(it))
	depth := 0
	for i, r := range src {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return strings.Join(strings.Fields(src[:i+1]), " ")
			}
		}
	}
	return "for"
}

// isCounter reports whether n is a reference to the loop counter v.
func (c *converter) isCounter(n cc.ExpressionNode, v *variable) bool {
	p, ok := unparen(n).(*cc.PrimaryExpression)
	if !ok || p.Case != cc.PrimaryExpressionIdent {
		return false
	}
	d, _ := p.ResolvedTo().(*cc.Declarator)
	return d != nil && c.vars[d] == v
}

// loopBound reads the condition k < hi (or k <= hi, hi > k, hi >= k).
func (c *converter) loopBound(it *cc.IterationStatement, cond cc.ExpressionNode, v *variable) ast.Expr {
	fail := func(n cc.Node) ast.Expr {
		c.errorf(n, "the loop condition must compare the counter %s with a bound (%s < n or %s <= n)", v.name, v.name, v.name)
		return bad()
	}
	if cond == nil {
		return fail(it)
	}
	r, ok := unparen(cond).(*cc.RelationalExpression)
	if !ok {
		return fail(cond)
	}
	var bound cc.ExpressionNode
	inclusive := false
	switch {
	case (r.Case == cc.RelationalExpressionLt || r.Case == cc.RelationalExpressionLeq) && c.isCounter(r.RelationalExpression, v):
		bound, inclusive = r.ShiftExpression, r.Case == cc.RelationalExpressionLeq
	case (r.Case == cc.RelationalExpressionGt || r.Case == cc.RelationalExpressionGeq) && c.isCounter(r.ShiftExpression, v):
		bound, inclusive = r.RelationalExpression, r.Case == cc.RelationalExpressionGeq
	case r.Case == cc.RelationalExpressionGt || r.Case == cc.RelationalExpressionGeq:
		c.errorf(r, "loops counting down are not supported")
		return bad()
	default:
		return fail(r)
	}
	hi := c.expr(bound)
	if c.mentions(hi, v.name) {
		return fail(r)
	}
	if inclusive {
		hi = ast.Sum(hi, ast.IntConst(1))
	}
	return hi
}

// loopStep reads the step k++, ++k, k += s or k = k + s.
func (c *converter) loopStep(it *cc.IterationStatement, stepN cc.ExpressionNode, v *variable) ast.Expr {
	fail := func(n cc.Node) ast.Expr {
		c.errorf(n, "the loop step must increase the counter %s (%s++, %s += STEP)", v.name, v.name, v.name)
		return bad()
	}
	if stepN == nil {
		return fail(it)
	}
	var step ast.Expr
	switch x := unparen(stepN).(type) {
	case *cc.PostfixExpression:
		switch {
		case x.Case == cc.PostfixExpressionInc && c.isCounter(x.PostfixExpression, v):
			step = ast.IntConst(1)
		case x.Case == cc.PostfixExpressionDec && c.isCounter(x.PostfixExpression, v):
			c.errorf(x, "loops counting down are not supported")
			return bad()
		}
	case *cc.UnaryExpression:
		switch {
		case x.Case == cc.UnaryExpressionInc && c.isCounter(x.UnaryExpression, v):
			step = ast.IntConst(1)
		case x.Case == cc.UnaryExpressionDec && c.isCounter(x.UnaryExpression, v):
			c.errorf(x, "loops counting down are not supported")
			return bad()
		}
	case *cc.AssignmentExpression:
		if !c.isCounter(x.UnaryExpression, v) {
			break
		}
		switch x.Case {
		case cc.AssignmentExpressionAdd:
			step = c.expr(x.AssignmentExpression)
		case cc.AssignmentExpressionSub:
			c.errorf(x, "loops counting down are not supported")
			return bad()
		case cc.AssignmentExpressionAssign:
			if a, ok := unparen(x.AssignmentExpression).(*cc.AdditiveExpression); ok && a.Case == cc.AdditiveExpressionAdd {
				switch {
				case c.isCounter(a.AdditiveExpression, v):
					step = c.expr(a.MultiplicativeExpression)
				case c.isCounter(a.MultiplicativeExpression, v):
					step = c.expr(a.AdditiveExpression)
				}
			}
		}
	}
	if step == nil {
		return fail(stepN)
	}
	if c.mentions(step, v.name) {
		return fail(stepN)
	}
	if l, ok := step.(*ast.IntLit); ok && l.Value <= 0 {
		c.errorf(stepN, "the loop step must be positive: loops counting down or by 0 are not supported")
		return bad()
	}
	return step
}

// mentions reports whether x reads the variable name.
func (c *converter) mentions(x ast.Expr, name string) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// ---- expressions ----

// lookup resolves an identifier to its variable, reporting what it is if
// the kernel cannot use it as a value.
func (c *converter) lookup(p *cc.PrimaryExpression) *variable {
	name := p.Token.SrcStr()
	switch d := p.ResolvedTo().(type) {
	case *cc.Declarator:
		if v := c.vars[d]; v != nil {
			return v
		}
		if d.Type().Kind() == cc.Function {
			c.errorf(p, "function %s used as a value", name)
		} else {
			c.errorf(p, "%s is not supported", name)
		}
	case nil:
		c.errorf(p, "undefined: %s", name)
	default:
		c.errorf(p, "%s (an enumeration constant) is not supported", name)
	}
	return nil
}

// expr converts an expression used as a value.
func (c *converter) expr(n cc.ExpressionNode) ast.Expr {
	switch x := n.(type) {
	case *cc.ExpressionList:
		if x.ExpressionList != nil {
			c.errorf(x, "the comma operator is not supported")
			return bad()
		}
		return c.expr(x.AssignmentExpression)
	case *cc.AssignmentExpression:
		if x.Case == cc.AssignmentExpressionCond {
			return c.expr(x.ConditionalExpression)
		}
		c.errorf(x.Token, "assignment inside an expression is not supported")
		return bad()
	case *cc.ConditionalExpression:
		if x.Case == cc.ConditionalExpressionLOr {
			return c.expr(x.LogicalOrExpression)
		}
		c.errorf(x.Token, "the conditional operator ?: is supported only as the whole right side of an assignment or initialization")
		return bad()
	case *cc.CastExpression:
		if x.Case == cc.CastExpressionUnary {
			return c.expr(x.UnaryExpression)
		}
		return c.cast(x)
	case *cc.UnaryExpression:
		return c.unary(x)
	case *cc.PostfixExpression:
		return c.postfix(x)
	case *cc.PrimaryExpression:
		return c.primary(x)
	}
	if l, op, r, tok, ok := binaryParts(n); ok {
		return c.binary(n, l, op, r, tok)
	}
	c.errorf(n, "this expression is not supported")
	return bad()
}

// binaryParts splits a binary expression node into its operands and
// operator; ok is false for any other node.
func binaryParts(n cc.ExpressionNode) (l cc.ExpressionNode, op string, r cc.ExpressionNode, tok cc.Token, ok bool) {
	switch x := n.(type) {
	case *cc.LogicalOrExpression:
		if x.Case == cc.LogicalOrExpressionLAnd {
			return nil, "", x.LogicalAndExpression, x.Token, true
		}
		return x.LogicalOrExpression, "||", x.LogicalAndExpression, x.Token, true
	case *cc.LogicalAndExpression:
		if x.Case == cc.LogicalAndExpressionOr {
			return nil, "", x.InclusiveOrExpression, x.Token, true
		}
		return x.LogicalAndExpression, "&&", x.InclusiveOrExpression, x.Token, true
	case *cc.InclusiveOrExpression:
		if x.Case == cc.InclusiveOrExpressionXor {
			return nil, "", x.ExclusiveOrExpression, x.Token, true
		}
		return x.InclusiveOrExpression, "|", x.ExclusiveOrExpression, x.Token, true
	case *cc.ExclusiveOrExpression:
		if x.Case == cc.ExclusiveOrExpressionAnd {
			return nil, "", x.AndExpression, x.Token, true
		}
		return x.ExclusiveOrExpression, "^", x.AndExpression, x.Token, true
	case *cc.AndExpression:
		if x.Case == cc.AndExpressionEq {
			return nil, "", x.EqualityExpression, x.Token, true
		}
		return x.AndExpression, "&", x.EqualityExpression, x.Token, true
	case *cc.EqualityExpression:
		if x.Case == cc.EqualityExpressionRel {
			return nil, "", x.RelationalExpression, x.Token, true
		}
		return x.EqualityExpression, x.Token.SrcStr(), x.RelationalExpression, x.Token, true
	case *cc.RelationalExpression:
		if x.Case == cc.RelationalExpressionShift {
			return nil, "", x.ShiftExpression, x.Token, true
		}
		return x.RelationalExpression, x.Token.SrcStr(), x.ShiftExpression, x.Token, true
	case *cc.ShiftExpression:
		if x.Case == cc.ShiftExpressionAdd {
			return nil, "", x.AdditiveExpression, x.Token, true
		}
		return x.ShiftExpression, x.Token.SrcStr(), x.AdditiveExpression, x.Token, true
	case *cc.AdditiveExpression:
		if x.Case == cc.AdditiveExpressionMul {
			return nil, "", x.MultiplicativeExpression, x.Token, true
		}
		return x.AdditiveExpression, x.Token.SrcStr(), x.MultiplicativeExpression, x.Token, true
	case *cc.MultiplicativeExpression:
		if x.Case == cc.MultiplicativeExpressionCast {
			return nil, "", x.CastExpression, x.Token, true
		}
		return x.MultiplicativeExpression, x.Token.SrcStr(), x.CastExpression, x.Token, true
	}
	return nil, "", nil, cc.Token{}, false
}

var binaryOps = map[string]ast.Op{
	"+": ast.Add, "-": ast.Sub, "*": ast.Mul, "/": ast.Div, "%": ast.Rem,
	"<": ast.Lt, "<=": ast.Le, ">": ast.Gt, ">=": ast.Ge, "==": ast.Eq, "!=": ast.Ne,
	"&&": ast.And, "||": ast.Or,
}

func (c *converter) binary(n, l cc.ExpressionNode, opText string, r cc.ExpressionNode, tok cc.Token) ast.Expr {
	if l == nil {
		return c.expr(r)
	}
	op, ok := binaryOps[opText]
	if !ok {
		c.errorf(tok, "bitwise operator %s is not supported", opText)
		return bad()
	}
	x, y := c.expr(l), c.expr(r)
	if isBad(x) || isBad(y) {
		return bad()
	}
	tx, ty := c.typeOf(x), c.typeOf(y)
	if _, arr := c.arrayRef(x); arr || c.isArrayName(y) {
		c.errorf(tok, "pointer arithmetic is not supported: index the array")
		return bad()
	}
	if op == ast.Rem && (tx != ast.Int && tx != ast.Bool || ty != ast.Int && ty != ast.Bool) {
		c.errorf(tok, "%% needs integer operands")
		return bad()
	}
	return &ast.Binary{Op: op, X: x, Y: y}
}

// arrayRef reports whether x is a bare array name (a pointer value).
func (c *converter) arrayRef(x ast.Expr) (string, bool) {
	id, ok := x.(*ast.Ident)
	if ok && c.ranks[id.Name] > 0 {
		return id.Name, true
	}
	return "", false
}

func (c *converter) isArrayName(x ast.Expr) bool {
	_, ok := c.arrayRef(x)
	return ok
}

func (c *converter) cast(x *cc.CastExpression) ast.Expr {
	to := x.TypeName.Type()
	if isInteger(to) {
		if s := c.workItemCall(x); s != nil {
			return s
		}
	}
	if to.Kind() == cc.Ptr {
		c.errorf(x, "pointer casts are not supported")
		return bad()
	}
	t, ok := scalarType(to)
	if !ok {
		c.errorf(x, "casts to %s are not supported (int, float and double are)", typeName(to))
		return bad()
	}
	v := c.expr(x.CastExpression)
	if isBad(v) {
		return v
	}
	if c.isArrayName(v) {
		c.errorf(x, "pointer casts are not supported")
		return bad()
	}
	if t.IsFloat() {
		if f, ok := c.floatConst(v, t); ok {
			return f
		}
	}
	return &ast.Cast{Type: t, X: v}
}

func (c *converter) unary(x *cc.UnaryExpression) ast.Expr {
	switch x.Case {
	case cc.UnaryExpressionPostfix:
		return c.expr(x.PostfixExpression)
	case cc.UnaryExpressionPlus:
		return c.operand(x.CastExpression, x)
	case cc.UnaryExpressionMinus:
		v := c.operand(x.CastExpression, x)
		switch l := v.(type) {
		case *ast.IntLit:
			return ast.IntConst(-l.Value)
		case *ast.FloatLit:
			return &ast.FloatLit{Value: -l.Value, Type: l.Type}
		}
		if isBad(v) {
			return v
		}
		return &ast.Unary{Op: ast.Neg, X: v}
	case cc.UnaryExpressionNot:
		v := c.operand(x.CastExpression, x)
		if isBad(v) {
			return v
		}
		return &ast.Unary{Op: ast.Not, X: v}
	case cc.UnaryExpressionCpl:
		c.errorf(x, "bitwise operator ~ is not supported")
	case cc.UnaryExpressionInc, cc.UnaryExpressionDec:
		c.errorf(x, "%s inside an expression is not supported: write it as a statement", x.Token.SrcStr())
	case cc.UnaryExpressionAddrof:
		c.errorf(x, "taking an address (&) is not supported")
	case cc.UnaryExpressionDeref:
		c.errorf(x, "pointer dereference is not supported: index the array")
	case cc.UnaryExpressionSizeofExpr, cc.UnaryExpressionSizeofType:
		c.errorf(x, "sizeof is not supported")
	default:
		c.errorf(x, "%s is not supported", x.Token.SrcStr())
	}
	return bad()
}

// operand converts the operand of a unary operator, which must be a
// scalar.
func (c *converter) operand(n cc.ExpressionNode, op cc.Node) ast.Expr {
	v := c.expr(n)
	if c.isArrayName(v) {
		c.errorf(op, "pointer arithmetic is not supported: index the array")
		return bad()
	}
	return v
}

func (c *converter) postfix(x *cc.PostfixExpression) ast.Expr {
	switch x.Case {
	case cc.PostfixExpressionPrimary:
		return c.expr(x.PrimaryExpression)
	case cc.PostfixExpressionIndex:
		return c.index(x)
	case cc.PostfixExpressionCall:
		return c.call(x)
	case cc.PostfixExpressionSelect, cc.PostfixExpressionPSelect:
		c.errorf(x.Token, "struct and vector components (%s%s) are not supported", x.Token.SrcStr(), x.Token2.SrcStr())
	case cc.PostfixExpressionInc, cc.PostfixExpressionDec:
		c.errorf(x.Token, "%s inside an expression is not supported: write it as a statement", x.Token.SrcStr())
	default:
		c.errorf(x, "compound literals are not supported")
	}
	return bad()
}

// index converts a[i], or t[i][j] for a private array.
func (c *converter) index(x *cc.PostfixExpression) ast.Expr {
	var subs []cc.ExpressionNode
	n := cc.ExpressionNode(x)
	for {
		pe, ok := unparen(n).(*cc.PostfixExpression)
		if !ok || pe.Case != cc.PostfixExpressionIndex {
			break
		}
		subs = append([]cc.ExpressionNode{pe.ExpressionList}, subs...)
		n = pe.PostfixExpression
	}
	base := c.expr(n)
	if isBad(base) {
		return base
	}
	name, ok := c.arrayRef(base)
	if !ok {
		c.errorf(x, "only arrays can be indexed")
		return bad()
	}
	if rank := c.ranks[name]; len(subs) != rank {
		c.errorf(x, "array %s has %d dimension(s) but is indexed with %d subscript(s)", name, rank, len(subs))
		return bad()
	}
	out := &ast.Index{Array: name}
	for _, s := range subs {
		i := c.expr(s)
		if isBad(i) {
			return i
		}
		if t := c.typeOf(i); t != ast.Int && t != ast.Bool {
			c.errorf(s, "the subscript of %s is %s, not an int", name, t)
			return bad()
		}
		out.Indices = append(out.Indices, i)
	}
	return out
}

func (c *converter) isBuiltin(name string) bool {
	_, ok := builtins[name]
	_, wi := workItem[name]
	return ok || wi
}

// call converts a call of a work-item function or a math built-in.
func (c *converter) call(x *cc.PostfixExpression) ast.Expr {
	name := calleeName(x)
	var args []cc.ExpressionNode
	for l := x.ArgumentExpressionList; l != nil; l = l.ArgumentExpressionList {
		args = append(args, l.AssignmentExpression)
	}
	if kind, ok := workItem[name]; ok {
		if len(args) != 1 {
			c.errorf(x, "%s takes one argument, the dimension", name)
			return bad()
		}
		d, ok := c.expr(args[0]).(*ast.IntLit)
		if !ok || d.Value < 0 || d.Value > 2 {
			c.errorf(args[0], "the dimension of %s must be the constant 0, 1 or 2", name)
			return bad()
		}
		return &ast.Special{Kind: kind, Dim: int(d.Value)}
	}
	b, ok := builtins[name]
	switch {
	case name == "":
		c.errorf(x, "only calls of named built-in functions are supported")
		return bad()
	case !ok && (name == "barrier" || name == "work_group_barrier" || strings.HasSuffix(name, "mem_fence")):
		c.errorf(x, "%s is not supported (a single-point kernel has no work-group cooperation)", name)
		return bad()
	case !ok:
		c.errorf(x, "%s is not supported", name)
		return bad()
	case len(args) != b.args:
		c.errorf(x, "%s takes %d argument(s), not %d", name, b.args, len(args))
		return bad()
	}
	out := &ast.Call{Func: name}
	t := ast.Invalid
	for i, a := range args {
		v := c.expr(a)
		if isBad(v) {
			return v
		}
		if c.isArrayName(v) {
			c.errorf(a, "pointer arguments are not supported")
			return bad()
		}
		at := c.typeOf(v)
		if i == 0 {
			t = at
		} else {
			t = arith(t, at)
		}
		out.Args = append(out.Args, v)
	}
	if b.floatOnly && !t.IsFloat() {
		c.errorf(x, "%s needs float or double arguments (OpenCL C has no integer %s): cast one", name, name)
		return bad()
	}
	return out
}

func (c *converter) primary(x *cc.PrimaryExpression) ast.Expr {
	switch x.Case {
	case cc.PrimaryExpressionIdent:
		v := c.lookup(x)
		switch {
		case v == nil:
			return bad()
		case v.special != nil:
			return &ast.Special{Kind: v.special.Kind, Dim: v.special.Dim}
		}
		return ast.Id(v.name)
	case cc.PrimaryExpressionInt:
		return c.intLit(x)
	case cc.PrimaryExpressionFloat:
		return c.floatLit(x)
	case cc.PrimaryExpressionExpr:
		return c.expr(x.ExpressionList)
	case cc.PrimaryExpressionChar, cc.PrimaryExpressionLChar:
		c.errorf(x, "character constants are not supported")
	case cc.PrimaryExpressionString, cc.PrimaryExpressionLString:
		c.errorf(x, "strings are not supported")
	default:
		c.errorf(x, "this expression is not supported")
	}
	return bad()
}

func (c *converter) intLit(x *cc.PrimaryExpression) ast.Expr {
	text := x.Token.SrcStr()
	digits := strings.TrimRight(text, "uUlL")
	if digits != text {
		c.errorf(x, "integer constant %s has a suffix: only int constants are supported", text)
		return bad()
	}
	v, err := strconv.ParseInt(digits, 0, 64)
	if err != nil || v > math.MaxInt32 {
		c.errorf(x, "integer constant %s does not fit in an int", text)
		return bad()
	}
	return ast.IntConst(v)
}

func (c *converter) floatLit(x *cc.PrimaryExpression) ast.Expr {
	text := x.Token.SrcStr()
	t, bits, digits := ast.Double, 64, text
	switch text[len(text)-1] {
	case 'f', 'F':
		if !strings.HasPrefix(text, "0x") && !strings.HasPrefix(text, "0X") || strings.ContainsAny(text, "pP") {
			t, bits, digits = ast.Float, 32, text[:len(text)-1]
		}
	case 'l', 'L':
		c.errorf(x, "long double constants are not supported")
		return bad()
	case 'h', 'H':
		c.errorf(x, "half constants are not supported")
		return bad()
	}
	v, err := strconv.ParseFloat(digits, bits)
	if err != nil {
		c.errorf(x, "bad floating-point constant %s", text)
		return bad()
	}
	return &ast.FloatLit{Value: v, Type: t}
}

// floatConst returns the constant x converted to the floating type t,
// exactly as C converts it, if x is a constant.
func (c *converter) floatConst(x ast.Expr, t ast.Type) (ast.Expr, bool) {
	var v float64
	switch l := x.(type) {
	case *ast.FloatLit:
		v = l.Value
	case *ast.IntLit:
		v = float64(l.Value)
	default:
		return nil, false
	}
	if t == ast.Float {
		v = float64(float32(v))
	}
	return &ast.FloatLit{Value: v, Type: t}, true
}

// convertTo gives a constant assigned to a float or double variable that
// type, as C's conversion would; other values keep their C conversion.
func (c *converter) convertTo(x ast.Expr, t ast.Type) ast.Expr {
	if _, ok := x.(*ast.FloatLit); ok && t.IsFloat() {
		f, _ := c.floatConst(x, t)
		return f
	}
	return x
}

// value converts an expression whose value is stored: a scalar, not an
// array.
func (c *converter) value(n cc.ExpressionNode) ast.Expr {
	v := c.expr(n)
	if c.isArrayName(v) {
		c.errorf(n, "pointer values are not supported: index the array")
		return bad()
	}
	return v
}

// ---- types ----

// arith is C's usual arithmetic conversion of two operand types, Invalid
// if either is.
func arith(a, b ast.Type) ast.Type {
	if a == ast.Invalid || b == ast.Invalid {
		return ast.Invalid
	}
	return ast.Arith(a, b)
}

// typeOf is the type of a converted expression.
func (c *converter) typeOf(x ast.Expr) ast.Type {
	switch x := x.(type) {
	case *ast.IntLit, *ast.Special:
		return ast.Int
	case *ast.FloatLit:
		return x.Type
	case *ast.Ident:
		if c.ranks[x.Name] > 0 {
			return ast.Invalid
		}
		return c.types[x.Name]
	case *ast.Index:
		return c.types[x.Array]
	case *ast.Cast:
		return x.Type
	case *ast.Unary:
		if x.Op == ast.Not {
			return ast.Bool
		}
		if t := c.typeOf(x.X); t != ast.Bool {
			return t
		}
		return ast.Int
	case *ast.Binary:
		if x.Op.IsComparison() || x.Op == ast.And || x.Op == ast.Or {
			return ast.Bool
		}
		return arith(c.typeOf(x.X), c.typeOf(x.Y))
	case *ast.Call:
		t := ast.Invalid
		for i, a := range x.Args {
			if i == 0 {
				t = c.typeOf(a)
			} else {
				t = arith(t, c.typeOf(a))
			}
		}
		if t == ast.Bool {
			return ast.Int
		}
		return t
	}
	return ast.Invalid
}

// negate returns the logical negation of a condition, flipping integer
// comparisons and applying De Morgan's laws where that is exact (a float
// comparison is kept under ! because of NaN).
func (c *converter) negate(x ast.Expr) ast.Expr {
	flip := map[ast.Op]ast.Op{ast.Lt: ast.Ge, ast.Ge: ast.Lt, ast.Le: ast.Gt, ast.Gt: ast.Le, ast.Eq: ast.Ne, ast.Ne: ast.Eq}
	switch b := x.(type) {
	case *ast.Binary:
		if f, ok := flip[b.Op]; ok && c.typeOf(b.X) == ast.Int && c.typeOf(b.Y) == ast.Int {
			return &ast.Binary{Op: f, X: b.X, Y: b.Y}
		}
		switch b.Op {
		case ast.And:
			return &ast.Binary{Op: ast.Or, X: c.negate(b.X), Y: c.negate(b.Y)}
		case ast.Or:
			return &ast.Binary{Op: ast.And, X: c.negate(b.X), Y: c.negate(b.Y)}
		}
	case *ast.Unary:
		if b.Op == ast.Not && c.typeOf(b.X) == ast.Bool {
			return b.X
		}
	}
	return &ast.Unary{Op: ast.Not, X: x}
}
