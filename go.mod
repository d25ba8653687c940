module github.com/hplopt/hplopt

go 1.26.8
