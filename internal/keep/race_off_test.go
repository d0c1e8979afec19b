//go:build !race

package keep

const raceEnabled = false
