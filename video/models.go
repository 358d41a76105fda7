package video

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// Size is a video size written "W*H", as the model takes it.
type Size string

// The sizes ModelWan25 takes: 480p, 720p (the default) and 1080p, landscape
// (16:9) or portrait (9:16). The platform documents only 1280*720; the
// 480p and 1080p values are WAN's native sizes.
const (
	Size480p          Size = "832*480"   // 480p landscape
	Size480pPortrait  Size = "480*832"   // 480p portrait
	Size720p          Size = "1280*720"  // 720p landscape, the default
	Size720pPortrait  Size = "720*1280"  // 720p portrait
	Size1080p         Size = "1920*1080" // 1080p landscape
	Size1080pPortrait Size = "1080*1920" // 1080p portrait
)

// Resolution is a size's class, which sets the price.
type Resolution string

// Resolutions.
const (
	Resolution480p  Resolution = "480p"  // Size480p and Size480pPortrait
	Resolution720p  Resolution = "720p"  // Size720p and Size720pPortrait
	Resolution1080p Resolution = "1080p" // Size1080p and Size1080pPortrait
)

var sizes = map[Size]Resolution{
	Size480p: Resolution480p, Size480pPortrait: Resolution480p,
	Size720p: Resolution720p, Size720pPortrait: Resolution720p,
	Size1080p: Resolution1080p, Size1080pPortrait: Resolution1080p,
}

// Resolution returns the size's resolution class, checking the size's
// form ("W*H", positive integers) and that it is one the model knows.
func (s Size) Resolution() (Resolution, error) {
	w, h, ok := strings.Cut(string(s), "*")
	wi, werr := strconv.Atoi(w)
	hi, herr := strconv.Atoi(h)
	if !ok || werr != nil || herr != nil || wi <= 0 || hi <= 0 {
		return "", fmt.Errorf(`want "W*H" with positive integers, such as %q, got %q`, Size720p, s)
	}
	r, known := sizes[s]
	if !known {
		return "", fmt.Errorf("%s is not a size the model takes: 480p, 720p or 1080p in 16:9 or 9:16 (%s, %s, %s, %s, %s, %s)",
			s, Size480p, Size480pPortrait, Size720p, Size720pPortrait, Size1080p, Size1080pPortrait)
	}
	return r, nil
}

// Wan25Input is the input of ModelWan25. Pointer fields are optional: nil sends
// the documented default, a set value (false and 0 included) is sent.
type Wan25Input struct {
	// Prompt describes the desired video; required.
	Prompt string
	// Image is the source image: an http(s) URL or a data: URI; required.
	Image string
	// NegativePrompt lists what to keep out of the video.
	NegativePrompt string
	// Size is the video size; default Size720p.
	Size Size
	// Duration in seconds: 5 (the default) or 10.
	Duration int
	// Seed makes a generation reproducible; -1 (the default) is random.
	Seed *int
	// EnablePromptExpansion lets the model expand the prompt; default
	// false.
	EnablePromptExpansion *bool
	// EnableSafetyChecker checks the content; default true.
	EnableSafetyChecker *bool
}

// Model returns ModelWan25.
func (in *Wan25Input) Model() Model { return ModelWan25 }

// Validate checks the input before anything is sent.
func (in *Wan25Input) Validate() error {
	if err := validPromptImage("Wan25Input", in.Prompt, in.Image); err != nil {
		return err
	}
	if in.Size != "" {
		if _, err := in.Size.Resolution(); err != nil {
			return fail.Invalid("Wan25Input.Size", "%v", err)
		}
	}
	if d := in.Duration; d != 0 && d != 5 && d != 10 {
		return fail.Invalid("Wan25Input.Duration", "must be 5 or 10 seconds, got %d", d)
	}
	return validSeed("Wan25Input.Seed", in.Seed)
}

type wan25Wire struct {
	Prompt                string `json:"prompt"`
	Image                 string `json:"image"`
	NegativePrompt        string `json:"negative_prompt,omitempty"`
	Size                  Size   `json:"size"`
	Duration              int    `json:"duration"`
	Seed                  int    `json:"seed"`
	EnablePromptExpansion bool   `json:"enable_prompt_expansion"`
	EnableSafetyChecker   bool   `json:"enable_safety_checker"`
}

func (in *Wan25Input) wire() any {
	return wan25Wire{
		Prompt: in.Prompt, Image: strings.TrimSpace(in.Image), NegativePrompt: in.NegativePrompt,
		Size: or(in.Size, Size720p), Duration: or(in.Duration, 5), Seed: orPtr(in.Seed, -1),
		EnablePromptExpansion: orPtr(in.EnablePromptExpansion, false), EnableSafetyChecker: orPtr(in.EnableSafetyChecker, true),
	}
}

// LoRA is a LoRA adapter applied during denoising.
type LoRA struct {
	// Path is the URL or path of the LoRA file; required.
	Path string `json:"path"`
	// Scale is its influence factor; a finite number.
	Scale float64 `json:"scale"`
}

// Wan22LoRAInput is the input of ModelWan22LoRA (720p, 16:9). Pointer fields
// are optional: nil sends the documented default.
type Wan22LoRAInput struct {
	// Prompt describes the desired motion; required.
	Prompt string
	// Image is the source image: an http(s) URL or a data: URI; required.
	Image string
	// HighNoiseLoRAs are adapters applied in the high-noise denoising
	// stage, which sets the layout and motion; empty for none.
	HighNoiseLoRAs []LoRA
	// LowNoiseLoRAs are adapters applied in the low-noise denoising
	// stage, which refines the details; empty for none.
	LowNoiseLoRAs []LoRA
	// Duration in seconds: 5 (the default) or 8.
	Duration int
	// Seed makes a generation reproducible; -1 (the default) is random.
	Seed *int
	// EnableSafetyChecker checks the content; default true.
	EnableSafetyChecker *bool
}

// Model returns ModelWan22LoRA.
func (in *Wan22LoRAInput) Model() Model { return ModelWan22LoRA }

// Validate checks the input before anything is sent.
func (in *Wan22LoRAInput) Validate() error {
	if err := validPromptImage("Wan22LoRAInput", in.Prompt, in.Image); err != nil {
		return err
	}
	if d := in.Duration; d != 0 && d != 5 && d != 8 {
		return fail.Invalid("Wan22LoRAInput.Duration", "must be 5 or 8 seconds, got %d", d)
	}
	for name, list := range map[string][]LoRA{"HighNoiseLoRAs": in.HighNoiseLoRAs, "LowNoiseLoRAs": in.LowNoiseLoRAs} {
		for i, l := range list {
			field := fmt.Sprintf("Wan22LoRAInput.%s[%d]", name, i)
			if strings.TrimSpace(l.Path) == "" {
				return fail.Invalid(field+".Path", "is required")
			}
			if math.IsNaN(l.Scale) || math.IsInf(l.Scale, 0) {
				return fail.Invalid(field+".Scale", "must be a finite number, got %v", l.Scale)
			}
		}
	}
	return validSeed("Wan22LoRAInput.Seed", in.Seed)
}

type loraWire struct {
	Prompt              string `json:"prompt"`
	Image               string `json:"image"`
	HighNoiseLoRAs      []LoRA `json:"high_noise_loras"`
	LowNoiseLoRAs       []LoRA `json:"low_noise_loras"`
	Duration            int    `json:"duration"`
	Seed                int    `json:"seed"`
	EnableSafetyChecker bool   `json:"enable_safety_checker"`
}

func (in *Wan22LoRAInput) wire() any {
	return loraWire{
		Prompt: in.Prompt, Image: strings.TrimSpace(in.Image),
		HighNoiseLoRAs: nonNil(in.HighNoiseLoRAs), LowNoiseLoRAs: nonNil(in.LowNoiseLoRAs),
		Duration: or(in.Duration, 5), Seed: orPtr(in.Seed, -1), EnableSafetyChecker: orPtr(in.EnableSafetyChecker, true),
	}
}

func validSeed(field string, seed *int) error {
	if seed != nil && (*seed < -1 || *seed > math.MaxInt32) {
		return fail.Invalid(field, "must be -1 (random) or 0 to %d, got %d", math.MaxInt32, *seed)
	}
	return nil
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func orPtr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

func nonNil(l []LoRA) []LoRA {
	if l == nil {
		return []LoRA{}
	}
	return l
}

// EstimateCost returns what a generation with input will cost, in USD, from
// the published price tables: ModelWan25 by resolution and duration (480p
// $0.25/$0.50, 720p $0.50/$1.00, 1080p $0.75/$1.50 for 5/10 s), ModelWan22LoRA
// $0.35 for 5 s and $0.56 for 8 s. The platform's own output.cost
// (Result.Cost) is authoritative. model must be input's model.
func EstimateCost(model Model, input Input) (float64, error) {
	if input == nil {
		return 0, fail.Invalid("input", "is nil")
	}
	if input.Model() != model {
		return 0, fail.Invalid("model", "the input is for %s, not %s", input.Model(), model)
	}
	if err := input.Validate(); err != nil {
		return 0, err
	}
	switch in := input.(type) {
	case *Wan25Input:
		res, _ := or(in.Size, Size720p).Resolution()
		five := map[Resolution]float64{Resolution480p: 0.25, Resolution720p: 0.50, Resolution1080p: 0.75}[res]
		if or(in.Duration, 5) == 10 {
			return five * 2, nil
		}
		return five, nil
	case *Wan22LoRAInput:
		if or(in.Duration, 5) == 8 {
			return 0.56, nil
		}
		return 0.35, nil
	}
	return 0, fail.Invalid("input", "unknown input type %T", input)
}

// validPromptImage checks the two fields every image-to-video input
// requires: a prompt and the source image; input is the input type's name.
func validPromptImage(input, prompt, image string) error {
	if strings.TrimSpace(prompt) == "" {
		return fail.Invalid(input+".Prompt", "is required")
	}
	return validImage(input+".Image", image)
}
