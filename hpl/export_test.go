package hpl

// CanonicalSeeds exposes canonicalSeeds to the external tests.
var CanonicalSeeds = canonicalSeeds
