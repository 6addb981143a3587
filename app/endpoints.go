package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"waymark/dataset"
	"waymark/engine/endpoints"
	"waymark/engine/har"
)

func init() {
	register("endpoints", "endpoints EPISODE…|--task ID|--all|--har-file FILE [--format openapi|json] [--summary] | endpoints search QUERY …",
		"the API endpoint catalogue of recorded network traffic (OpenAPI 3.1), and a search over it", runEndpoints)
}

const endpointsUsage = `waymark endpoints EPISODE… | --task ID | --all | --har-file FILE… [--base URL] [--format openapi|json|openapi-json] [--summary] [-o FILE]
       waymark endpoints search QUERY (EPISODE… | --task ID | --all | --har-file FILE… | --catalogue FILE.json) [--top 3] [--embed-url URL [--embed-model NAME]]`

// endpointSource is where the HAR logs come from: episodes of the store,
// a task's episodes, all episodes, HAR files, or a catalogue written
// before (search only).
type endpointSource struct {
	task, catalogue, base string
	all                   bool
	harFiles, hosts       multiFlag
}

func (src *endpointSource) flags(fs *flag.FlagSet, search bool) {
	fs.StringVar(&src.task, "task", "", "the episodes of this task (its id: see waymark tasks list)")
	fs.BoolVar(&src.all, "all", false, "every episode recorded with network capture (the sites' calls are merged: give --base to keep one)")
	fs.Var(&src.harFiles, "har-file", "a HAR 1.2 file (repeatable), e.g. one written by 'waymark har' or a browser's devtools")
	fs.StringVar(&src.base, "base", "", "the application's URL: only calls to its host are kept (default: the task's site, else each log's first page)")
	fs.Var(&src.hosts, "host", "another host whose calls are the application's, e.g. api.example.com (repeatable)")
	if search {
		fs.StringVar(&src.catalogue, "catalogue", "", "a catalogue written by 'waymark endpoints --format json'")
	}
}

func runEndpoints(env *Env, args []string) error {
	if len(args) > 0 && args[0] == "search" {
		return runEndpointsSearch(env, args[1:])
	}
	fs := newFlags(env, "endpoints")
	var src endpointSource
	src.flags(fs, false)
	format := fs.String("format", "openapi", "openapi (OpenAPI 3.1 YAML), openapi-json (the same in JSON) or json (the catalogue with its samples, for search --catalogue)")
	summary := fs.Bool("summary", false, "print only METHOD /path lines")
	out := fs.String("o", "", "write to this file instead of standard output")
	samples := fs.Int("samples", 3, "sample values kept per field and parameter")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: "+endpointsUsage+"\n\nOptions:")
		fs.PrintDefaults()
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if *format != "openapi" && *format != "json" && *format != "openapi-json" {
		return fmt.Errorf("%w: --format %q: use openapi, openapi-json or json", errUsage, *format)
	}
	cat, err := src.build(env, pos, *samples)
	if err != nil {
		return err
	}
	var data []byte
	switch {
	case *summary:
		data = []byte(cat.Summary())
	case *format == "json":
		data = cat.JSON()
	case *format == "openapi-json":
		data = cat.OpenAPIJSON()
	default:
		data = cat.OpenAPI()
	}
	explainEmpty(env, cat)
	if *out == "" {
		_, err := env.Stdout.Write(data)
		return err
	}
	if err := writeOwnerOnly(*out, data); err != nil {
		return fmt.Errorf("cannot write %s: %w", *out, err)
	}
	fmt.Fprintf(env.Stdout, "Wrote %s: %d endpoints from %d API calls in %d log(s).\n", *out, len(cat.Endpoints), cat.Calls, cat.Logs)
	return nil
}

// explainEmpty says on standard error why a catalogue has no endpoint.
func explainEmpty(env *Env, cat *endpoints.Catalogue) {
	if len(cat.Endpoints) > 0 {
		return
	}
	var why []string
	for _, k := range sortedReasons(cat.Skipped) {
		why = append(why, fmt.Sprintf("%s %d", k, cat.Skipped[k]))
	}
	fmt.Fprintf(env.Stderr, "waymark endpoints: no API call found in %d log(s) (requests left out: %s); if the API is on another host, give it with --host or --base\n",
		cat.Logs, strings.Join(why, ", "))
}

func sortedReasons(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// build makes the catalogue of the source's logs.
func (src *endpointSource) build(env *Env, episodes []string, samples int) (*endpoints.Catalogue, error) {
	n := 0
	if len(src.harFiles) > 0 {
		n++
	}
	if src.task != "" {
		n++
	}
	if src.all {
		n++
	}
	if len(episodes) > 0 {
		n++
	}
	if n != 1 {
		return nil, fmt.Errorf("%w: give one source of traffic: EPISODE ids, --task ID, --all, or --har-file FILE\n  %s", errUsage, endpointsUsage)
	}
	opts := endpoints.Options{Base: src.base, Hosts: src.hosts, Samples: samples}
	if len(src.harFiles) > 0 {
		var logs [][]byte
		for _, f := range src.harFiles {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("cannot read the HAR file: %w", err)
			}
			logs = append(logs, b)
		}
		cat, err := endpoints.FromHAR(logs, opts)
		if err != nil {
			return nil, fmt.Errorf("%w (HAR files in order: %s)", err, strings.Join(src.harFiles, ", "))
		}
		return cat, nil
	}
	st, err := env.OpenExistingStore()
	if err != nil {
		return nil, err
	}
	defer st.Close()
	logs, site, err := src.storeLogs(env, st, episodes)
	if err != nil {
		return nil, err
	}
	if opts.Base == "" {
		opts.Base = site
	}
	return endpoints.FromLogs(logs, opts)
}

// storeLogs reads the HAR logs of the chosen episodes from the store, and
// the site of their task(s) when they share one.
func (src *endpointSource) storeLogs(env *Env, st *dataset.Store, ids []string) ([]*har.Log, string, error) {
	explicit := len(ids) > 0
	what := "the episodes given"
	if !explicit {
		f := dataset.EpisodeFilter{OldestFirst: true}
		what = "the store"
		if src.task != "" {
			if _, err := st.GetTask(context.Background(), src.task); errors.Is(err, dataset.ErrNotFound) {
				return nil, "", fmt.Errorf("%w: no task %q in %s (see waymark tasks list)", errUsage, src.task, env.DBPath)
			} else if err != nil {
				return nil, "", err
			}
			f.TaskID = src.task
			what = "task " + src.task
		}
		eps, err := st.ListEpisodes(context.Background(), f)
		if err != nil {
			return nil, "", err
		}
		for _, e := range eps {
			ids = append(ids, e.ID)
		}
	}
	var logs []*har.Log
	sites := map[string]bool{}
	noCapture := 0
	for _, id := range ids {
		ep, err := st.GetEpisode(context.Background(), id)
		if errors.Is(err, dataset.ErrNotFound) {
			return nil, "", fmt.Errorf("%w: no episode %q in %s", errUsage, id, env.DBPath)
		} else if err != nil {
			return nil, "", err
		}
		sum, err := st.HARSummary(context.Background(), id)
		if err != nil {
			return nil, "", err
		}
		if sum == nil {
			if explicit {
				return nil, "", fmt.Errorf("episode %s was recorded without network capture: record it again with capture on (--har, the default) to get its endpoints", id)
			}
			noCapture++
			continue
		}
		log, err := st.EpisodeHAR(context.Background(), id)
		if err != nil {
			return nil, "", err
		}
		logs = append(logs, log)
		if t, err := st.GetTask(context.Background(), ep.TaskID); err == nil {
			if u, err := url.Parse(t.StartURL); err == nil && u.Host != "" {
				sites[u.Scheme+"://"+u.Host] = true
			}
		}
	}
	if len(logs) == 0 {
		return nil, "", fmt.Errorf("no episode of %s has a network capture (%d without): record episodes with capture on (--har, the default), or give HAR files with --har-file", what, noCapture)
	}
	if noCapture > 0 {
		fmt.Fprintf(env.Stderr, "waymark endpoints: %d episode(s) of %s were recorded without network capture and are left out\n", noCapture, what)
	}
	site := ""
	if len(sites) == 1 {
		for s := range sites {
			site = s
		}
	}
	return logs, site, nil
}

func runEndpointsSearch(env *Env, args []string) error {
	fs := newFlags(env, "endpoints search")
	var src endpointSource
	src.flags(fs, true)
	top := fs.Int("top", 3, "how many endpoints to show (0: every match)")
	embedURL := fs.String("embed-url", "", "rank by embeddings from this OpenAI-compatible server (vLLM, text-embeddings-inference), e.g. http://localhost:8000; default: BM25 over the endpoints' words")
	embedModel := fs.String("embed-model", endpoints.DefaultEmbedModel, "the embedding model the server serves")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: "+endpointsUsage+"\n\nOptions:")
		fs.PrintDefaults()
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: give the question: waymark endpoints search \"add item to cart\" --har-file FILE", errUsage)
	}
	query, episodes := pos[0], pos[1:]
	var cat *endpoints.Catalogue
	if src.catalogue != "" {
		if len(episodes) > 0 || src.task != "" || src.all || len(src.harFiles) > 0 {
			return fmt.Errorf("%w: --catalogue is the whole source: give no episodes, --task, --all or --har-file with it", errUsage)
		}
		b, err := os.ReadFile(src.catalogue)
		if err != nil {
			return fmt.Errorf("cannot read the catalogue: %w", err)
		}
		if cat, err = endpoints.ReadJSON(b); err != nil {
			return fmt.Errorf("%s: %w", src.catalogue, err)
		}
	} else if cat, err = src.build(env, episodes, 3); err != nil {
		return err
	}
	var res []endpoints.Result
	how := "BM25"
	if *embedURL != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		how = "embeddings of " + *embedModel
		res, err = cat.SearchEmbedded(ctx, query, *top, &endpoints.Embedder{URL: *embedURL, Model: *embedModel})
		if err != nil {
			return err
		}
	} else {
		res = cat.Search(query, *top)
	}
	if len(res) == 0 {
		fmt.Fprintf(env.Stdout, "No endpoint of the %d matches %q.\n", len(cat.Endpoints), query)
		explainEmpty(env, cat)
		return nil
	}
	fmt.Fprintf(env.Stdout, "%d of %d endpoints for %q (%s):\n", len(res), len(cat.Endpoints), query, how)
	for i, r := range res {
		fmt.Fprintf(env.Stdout, "\n%d. (score %.3f) %s", i+1, r.Score, r.Endpoint.Document())
	}
	return nil
}
