//go:build !cgo || noxla || !linux || !amd64

package backend

const xlaCompiledIn = false

func disableXLAAutoInstall() {}
