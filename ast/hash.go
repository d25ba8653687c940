package ast

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
)

// Hash returns a structural hash of k: the SHA-256 of an encoding of the
// kernel's name, parameters (names, types, ranks, memory spaces, extents)
// and work-group size, and of every node of its body in tree order with its
// kind and fields (names, types, memory spaces, operators, constants, loop
// roles and unroll factors). It is deterministic, does not depend on the
// printer, and is equal for a kernel and its Clone; kernels that differ in
// any of these differ in their hash. It keys results per kernel, such as
// the tunings a process remembers.
func Hash(k *Kernel) [32]byte {
	h := &hasher{h: sha256.New()}
	h.str(k.Name)
	h.int(int64(len(k.Params)))
	for _, p := range k.Params {
		h.str(p.Name)
		h.int(int64(p.Type), int64(p.Rank), int64(p.Mem))
		h.ints(p.Extents)
	}
	h.ints(k.WorkGroup)
	if k.Options != "" { // kernels hashed before Options keep their hash
		h.str(k.Options)
	}
	h.node(k.Body)
	var sum [32]byte
	h.h.Sum(sum[:0])
	return sum
}

type hasher struct {
	h   hash.Hash
	buf [8]byte
}

func (h *hasher) int(vs ...int64) {
	for _, v := range vs {
		binary.LittleEndian.PutUint64(h.buf[:], uint64(v))
		h.h.Write(h.buf[:])
	}
}

func (h *hasher) str(s string) {
	h.int(int64(len(s)))
	h.h.Write([]byte(s))
}

func (h *hasher) ints(vs []int) {
	h.int(int64(len(vs)))
	for _, v := range vs {
		h.int(int64(v))
	}
}

func (h *hasher) bool(bs ...bool) {
	for _, b := range bs {
		v := int64(0)
		if b {
			v = 1
		}
		h.int(v)
	}
}

// Node kinds, as hashed.
const (
	hashIdent = iota + 1
	hashIntLit
	hashFloatLit
	hashIndex
	hashBinary
	hashUnary
	hashCall
	hashCast
	hashSpecial
	hashDecl
	hashAssign
	hashBlock
	hashIf
	hashFor
	hashWhile
	hashBarrier
	hashCompute
	hashLoad
	hashLane
	hashVector
)

// node hashes n's kind and own fields, then its children (counted, so that
// an absent optional child, such as an If without Else, is told apart).
func (h *hasher) node(n Node) {
	switch n := n.(type) {
	case *Ident:
		h.int(hashIdent)
		h.str(n.Name)
	case *IntLit:
		h.int(hashIntLit, n.Value)
	case *FloatLit:
		h.int(hashFloatLit, int64(math.Float64bits(n.Value)), int64(n.Type))
	case *Index:
		h.int(hashIndex)
		h.str(n.Array)
	case *Binary:
		h.int(hashBinary, int64(n.Op))
	case *Unary:
		h.int(hashUnary, int64(n.Op))
	case *Call:
		h.int(hashCall)
		h.str(n.Func)
	case *Cast:
		h.int(hashCast, int64(n.Type))
	case *Special:
		h.int(hashSpecial, int64(n.Kind), int64(n.Dim))
	case *Load:
		h.int(hashLoad, int64(n.Width))
		h.bool(n.Aligned)
	case *Lane:
		h.int(hashLane, int64(n.Lane))
	case *Vector:
		h.int(hashVector, int64(n.Type), int64(n.Width))
	case *Decl:
		h.int(hashDecl)
		h.str(n.Name)
		h.int(int64(n.Type), int64(n.Mem))
		h.ints(n.Extents)
		if n.Width > 1 || n.Align > 0 { // absent from the hashes of kernels without them
			h.int(int64(n.Width), int64(n.Align))
		}
	case *Assign:
		h.int(hashAssign, int64(n.Op))
	case *Block:
		h.int(hashBlock)
	case *If:
		h.int(hashIf)
	case *For:
		h.int(hashFor)
		h.str(n.Var)
		h.int(int64(n.Role), int64(n.Unroll))
	case *While:
		h.int(hashWhile)
	case *Barrier:
		h.int(hashBarrier)
		h.bool(n.Local, n.Global)
	case *Compute:
		h.int(hashCompute)
	default:
		panic(fmt.Sprintf("ast: Hash: unknown node %T", n))
	}
	cs := children(n)
	h.int(int64(len(cs)))
	for _, c := range cs {
		h.node(c)
	}
}
