// SPDX-License-Identifier: GPL-2.0-only
/*
 * LIO fabric registration and configfs: target ports (srpt_make_tport,
 * srpt_drop_tport), TPGs (srpt_make_tpg, srpt_drop_tpg), node ACLs and
 * attributes. Every decision is the core's; this file only moves
 * arguments between configfs and the core.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <scsi/scsi_proto.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include <srpt/version.h>

#include "compat.h"
#include "shim.h"

static struct srpt_os_tpg *srpt_tpg(struct se_portal_group *se_tpg)
{
	return container_of(se_tpg, struct srpt_os_tpg, se_tpg);
}

static struct srpt_os_tport *srpt_tport(struct se_wwn *wwn)
{
	return container_of(wwn, struct srpt_os_tport, wwn);
}

static char *srpt_get_fabric_wwn(struct se_portal_group *se_tpg)
{
	return (char *)srpt_core_tport_name(srpt_tport(se_tpg->se_tpg_wwn)->core);
}

static u16 srpt_get_tag(struct se_portal_group *se_tpg)
{
	return 1;
}

static u32 srpt_tpg_get_inst_index(struct se_portal_group *se_tpg)
{
	return 1;
}

static int srpt_check_true(struct se_portal_group *se_tpg)
{
	return 1;
}

static int srpt_check_false(struct se_portal_group *se_tpg)
{
	return 0;
}

static u32 srpt_sess_get_index(struct se_session *se_sess)
{
	return 0;
}

static void srpt_set_default_node_attrs(struct se_node_acl *nacl)
{
}

/* srpt_init_nodeacl: mkdir .../acls/$name; the core validates $name. */
static int srpt_init_nodeacl(struct se_node_acl *se_nacl, const char *name)
{
	return srpt_core_nacl_init(name);
}

#define SRPT_TPG_ATTRIB(_name, _id)					\
static ssize_t srpt_tpg_attrib_##_name##_show(struct config_item *item,	\
					      char *page)		\
{									\
	return srpt_core_tpg_attrib_show(srpt_tpg(attrib_to_tpg(item))->core, \
					 _id, page, PAGE_SIZE);		\
}									\
static ssize_t srpt_tpg_attrib_##_name##_store(struct config_item *item, \
					       const char *page,	\
					       size_t count)		\
{									\
	return srpt_core_tpg_attrib_store(srpt_tpg(attrib_to_tpg(item))->core, \
					  _id, page, count);		\
}									\
CONFIGFS_ATTR(srpt_tpg_attrib_, _name)

SRPT_TPG_ATTRIB(srp_max_rdma_size, SRPT_ATTRIB_MAX_RDMA_SIZE);
SRPT_TPG_ATTRIB(srp_max_rsp_size, SRPT_ATTRIB_MAX_RSP_SIZE);
SRPT_TPG_ATTRIB(srp_sq_size, SRPT_ATTRIB_SQ_SIZE);
SRPT_TPG_ATTRIB(use_srq, SRPT_ATTRIB_USE_SRQ);

static struct configfs_attribute *srpt_tpg_attrib_attrs[] = {
	&srpt_tpg_attrib_attr_srp_max_rdma_size,
	&srpt_tpg_attrib_attr_srp_max_rsp_size,
	&srpt_tpg_attrib_attr_srp_sq_size,
	&srpt_tpg_attrib_attr_use_srq,
	NULL,
};

static ssize_t srpt_rdma_cm_port_show(struct config_item *item, char *page)
{
	return srpt_core_rdma_cm_port_show(page, PAGE_SIZE);
}

static ssize_t srpt_rdma_cm_port_store(struct config_item *item,
				       const char *page, size_t count)
{
	return srpt_core_rdma_cm_port_store(page, count);
}

CONFIGFS_ATTR(srpt_, rdma_cm_port);

static struct configfs_attribute *srpt_da_attrs[] = {
	&srpt_attr_rdma_cm_port,
	NULL,
};

static ssize_t srpt_wwn_version_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", SRPT_VERSION);
}

CONFIGFS_ATTR_RO(srpt_wwn_, version);

static struct configfs_attribute *srpt_wwn_attrs[] = {
	&srpt_wwn_attr_version,
	NULL,
};

/* .../$port/tpgt_1/statistics: the RDMA port's, whichever name form. */
static ssize_t srpt_tpg_statistics_show(struct config_item *item, char *page)
{
	struct se_portal_group *se_tpg = to_tpg(item);

	return srpt_core_tport_stats_show(srpt_tport(se_tpg->se_tpg_wwn)->core,
					  page, PAGE_SIZE);
}

CONFIGFS_ATTR_RO(srpt_tpg_, statistics);

static int srpt_enable_tpg(struct se_portal_group *se_tpg, bool enable)
{
	return srpt_core_tpg_enable(srpt_tpg(se_tpg)->core, enable);
}

#ifndef SRPT_HAVE_FABRIC_ENABLE_TPG
/* Before 5.16 each fabric gave its TPGs "enable"; as LIO's own does since. */
static ssize_t srpt_tpg_enable_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", srpt_tpg(to_tpg(item))->enabled);
}

static ssize_t srpt_tpg_enable_store(struct config_item *item, const char *page, size_t count)
{
	struct srpt_os_tpg *tpg = srpt_tpg(to_tpg(item));
	bool enable;
	int ret;

	ret = kstrtobool(page, &enable);
	if (ret)
		return ret;
	if (tpg->enabled == enable)
		return count;
	ret = srpt_enable_tpg(&tpg->se_tpg, enable);
	if (ret)
		return ret;
	tpg->enabled = enable;
	return count;
}

CONFIGFS_ATTR(srpt_tpg_, enable);
#endif

static struct configfs_attribute *srpt_tpg_attrs[] = {
#ifndef SRPT_HAVE_FABRIC_ENABLE_TPG
	&srpt_tpg_attr_enable,
#endif
	&srpt_tpg_attr_statistics,
	NULL,
};

/* .../acls/$initiator/statistics: the sessions of that node ACL. */
static ssize_t srpt_nacl_statistics_show(struct config_item *item, char *page)
{
	struct se_node_acl *nacl = acl_to_nacl(item);

	return srpt_core_nacl_stats_show(srpt_tpg(nacl->se_tpg)->core,
					 nacl->initiatorname, page, PAGE_SIZE);
}

CONFIGFS_ATTR_RO(srpt_nacl_, statistics);

/* .../acls/$initiator/info: its session and channels (targetcli sessions). */
static ssize_t srpt_nacl_info_show(struct config_item *item, char *page)
{
	struct se_node_acl *nacl = acl_to_nacl(item);

	return srpt_core_nacl_info_show(srpt_tpg(nacl->se_tpg)->core,
					nacl->initiatorname, page, PAGE_SIZE);
}

CONFIGFS_ATTR_RO(srpt_nacl_, info);

static struct configfs_attribute *srpt_nacl_attrs[] = {
	&srpt_nacl_attr_statistics,
	&srpt_nacl_attr_info,
	NULL,
};

/*
 * .../acls/$initiator/auth/authenticate_target: always 0, SRP has no
 * authentication; "targetcli sessions detail" reads it for every session.
 */
static ssize_t srpt_nacl_auth_authenticate_target_show(struct config_item *item,
							char *page)
{
	return sysfs_emit(page, "0\n");
}

CONFIGFS_ATTR_RO(srpt_nacl_auth_, authenticate_target);

static struct configfs_attribute *srpt_nacl_auth_attrs[] = {
	&srpt_nacl_auth_attr_authenticate_target,
	NULL,
};

/* srpt_make_tpg: mkdir .../srpt/$port/$tpg */
static struct se_portal_group *srpt_make_tpg(struct se_wwn *wwn,
					     const char *name)
{
	struct srpt_os_tpg *tpg;
	int ret;

	tpg = kzalloc(sizeof(*tpg), GFP_KERNEL);
	if (!tpg)
		return ERR_PTR(-ENOMEM);
	ret = srpt_core_tpg_create(srpt_tport(wwn)->core, name, tpg, &tpg->core);
	if (ret)
		goto free;
	ret = core_tpg_register(wwn, &tpg->se_tpg, SCSI_PROTOCOL_SRP);
	if (ret)
		goto destroy;
	return &tpg->se_tpg;

destroy:
	srpt_core_tpg_destroy(tpg->core);
free:
	kfree(tpg);
	return ERR_PTR(ret);
}

/* srpt_drop_tpg: rmdir .../srpt/$port/$tpg; sessions go before the TPG. */
static void srpt_drop_tpg(struct se_portal_group *se_tpg)
{
	struct srpt_os_tpg *tpg = srpt_tpg(se_tpg);

	srpt_core_tpg_destroy(tpg->core);
	core_tpg_deregister(se_tpg);
	kfree(tpg);
}

/* srpt_make_tport: mkdir /sys/kernel/config/target/srpt/$port */
static struct se_wwn *srpt_make_tport(struct target_fabric_configfs *tf,
				      struct config_group *group,
				      const char *name)
{
	struct srpt_os_tport *tport;
	int ret;

	tport = kzalloc(sizeof(*tport), GFP_KERNEL);
	if (!tport)
		return ERR_PTR(-ENOMEM);
	ret = srpt_core_tport_create(name, tport, &tport->core);
	if (ret) {
		kfree(tport);
		return ERR_PTR(ret);
	}
	return &tport->wwn;
}

/* srpt_drop_tport: rmdir /sys/kernel/config/target/srpt/$port */
static void srpt_drop_tport(struct se_wwn *wwn)
{
	struct srpt_os_tport *tport = srpt_tport(wwn);

	srpt_core_tport_destroy(tport->core);
	kfree(tport);
}

static const struct target_core_fabric_ops srpt_template = {
	.module				= THIS_MODULE,
	.fabric_name			= "srpt",
	.tpg_get_wwn			= srpt_get_fabric_wwn,
	.tpg_get_tag			= srpt_get_tag,
	.tpg_check_demo_mode		= srpt_check_false,
	.tpg_check_demo_mode_cache	= srpt_check_true,
	.tpg_check_demo_mode_write_protect = srpt_check_true,
	.tpg_check_prod_mode_write_protect = srpt_check_false,
	.tpg_get_inst_index		= srpt_tpg_get_inst_index,
	.sess_get_index			= srpt_sess_get_index,
	.set_default_node_attributes	= srpt_set_default_node_attrs,
	.check_stop_free		= srpt_check_stop_free,
	.release_cmd			= srpt_release_cmd,
	.close_session			= srpt_close_session,
	.write_pending			= srpt_write_pending,
	.get_cmd_state			= srpt_get_tcm_cmd_state,
	.queue_data_in			= srpt_queue_data_in,
	.queue_status			= srpt_queue_status,
	.queue_tm_rsp			= srpt_queue_tm_rsp,
	.aborted_task			= srpt_aborted_task,
	.fabric_make_wwn		= srpt_make_tport,
	.fabric_drop_wwn		= srpt_drop_tport,
	.fabric_make_tpg		= srpt_make_tpg,
#ifdef SRPT_HAVE_FABRIC_ENABLE_TPG
	.fabric_enable_tpg		= srpt_enable_tpg,
#endif
	.fabric_drop_tpg		= srpt_drop_tpg,
	.fabric_init_nodeacl		= srpt_init_nodeacl,
	.tfc_discovery_attrs		= srpt_da_attrs,
	.tfc_wwn_attrs			= srpt_wwn_attrs,
	.tfc_tpg_base_attrs		= srpt_tpg_attrs,
	.tfc_tpg_attrib_attrs		= srpt_tpg_attrib_attrs,
	.tfc_tpg_nacl_base_attrs	= srpt_nacl_attrs,
	.tfc_tpg_nacl_auth_attrs	= srpt_nacl_auth_attrs,
	SRPT_FABRIC_SUBMIT_OPS
};

int srpt_lio_register(void)
{
	return target_register_template(&srpt_template);
}

void srpt_lio_unregister(void)
{
	target_unregister_template(&srpt_template);
}
