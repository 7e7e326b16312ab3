/* fakegraph.c - a stand-in libcudnn_graph.so.9, so that the fake cuDNN has a sub-library
 * whose origin validation can check. */
int fake_graph_marker(void) { return 0; }
